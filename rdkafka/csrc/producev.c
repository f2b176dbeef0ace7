/*
 * rd_kafka_producev: the variadic producer call, which stable Rust cannot
 * define. Reads the (vtype, value...) list into rd_kafka_vu_t entries and
 * hands them to rd_kafka_produceva (src/producer.rs), turning its error
 * object into the error code producev returns.
 *
 * Each vtype's arguments are the types rdkafka.h's RD_KAFKA_V_* macros
 * cast them to. A vtype this file does not know ends the list with
 * RD_KAFKA_RESP_ERR__INVALID_ARG: its arguments' sizes are unknown, so
 * nothing after it can be read.
 *
 * Compiled by build.rs against gregor's own rdkafka.h, and linked into
 * librdkafka.so.1 as an object file of its own, so the name is exported
 * by the library's version script like the Rust-defined ones.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "librdkafka/rdkafka.h"

/* Reads one entry's value(s) for vu->vtype; 0 for an unknown vtype. */
static int read_value(va_list *ap, rd_kafka_vu_t *vu) {
        switch (vu->vtype) {
        case RD_KAFKA_VTYPE_TOPIC:
                vu->u.cstr = va_arg(*ap, const char *);
                return 1;
        case RD_KAFKA_VTYPE_RKT:
                vu->u.rkt = va_arg(*ap, rd_kafka_topic_t *);
                return 1;
        case RD_KAFKA_VTYPE_PARTITION:
                vu->u.i32 = va_arg(*ap, int32_t);
                return 1;
        case RD_KAFKA_VTYPE_VALUE:
        case RD_KAFKA_VTYPE_KEY:
                vu->u.mem.ptr  = va_arg(*ap, void *);
                vu->u.mem.size = va_arg(*ap, size_t);
                return 1;
        case RD_KAFKA_VTYPE_OPAQUE:
                vu->u.ptr = va_arg(*ap, void *);
                return 1;
        case RD_KAFKA_VTYPE_MSGFLAGS:
                vu->u.i = va_arg(*ap, int);
                return 1;
        case RD_KAFKA_VTYPE_TIMESTAMP:
                vu->u.i64 = va_arg(*ap, int64_t);
                return 1;
        case RD_KAFKA_VTYPE_HEADER:
                vu->u.header.name = va_arg(*ap, const char *);
                vu->u.header.val  = va_arg(*ap, const void *);
                vu->u.header.size = va_arg(*ap, ssize_t);
                return 1;
        case RD_KAFKA_VTYPE_HEADERS:
                vu->u.headers = va_arg(*ap, rd_kafka_headers_t *);
                return 1;
        default:
                return 0;
        }
}

/* Entries read onto the stack; a longer list (many headers) moves to the
 * heap, doubling. One pass over the arguments, no allocation per call in
 * the common case. */
#define STACK_VUS 16

rd_kafka_resp_err_t rd_kafka_producev(rd_kafka_t *rk, ...) {
        rd_kafka_vu_t stack[STACK_VUS];
        rd_kafka_vu_t *vus = stack, *heap = NULL;
        size_t n = 0, cap = STACK_VUS;
        rd_kafka_error_t *error;
        rd_kafka_resp_err_t err;
        va_list ap;

        va_start(ap, rk);
        for (;;) {
                rd_kafka_vu_t vu;
                memset(&vu, 0, sizeof(vu));
                vu.vtype = (rd_kafka_vtype_t)va_arg(ap, int);
                if (vu.vtype == RD_KAFKA_VTYPE_END)
                        break;
                if (!read_value(&ap, &vu)) {
                        va_end(ap);
                        free(heap);
                        return RD_KAFKA_RESP_ERR__INVALID_ARG;
                }
                if (n == cap) {
                        rd_kafka_vu_t *grown = malloc(2 * cap * sizeof(*grown));
                        if (!grown) {
                                va_end(ap);
                                free(heap);
                                return RD_KAFKA_RESP_ERR__FAIL;
                        }
                        memcpy(grown, vus, n * sizeof(*grown));
                        free(heap);
                        vus = heap = grown;
                        cap *= 2;
                }
                vus[n++] = vu;
        }
        va_end(ap);

        error = rd_kafka_produceva(rk, vus, n);
        free(heap);
        if (!error)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        err = rd_kafka_error_code(error);
        rd_kafka_error_destroy(error);
        return err;
}
