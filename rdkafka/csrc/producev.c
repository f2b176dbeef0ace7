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

/* Reads entries up to RD_KAFKA_VTYPE_END into vus (when not NULL);
 * returns how many, or -1 at an unknown vtype. */
static long read_list(va_list *ap, rd_kafka_vu_t *vus) {
        long n = 0;
        rd_kafka_vu_t vu;
        for (;;) {
                memset(&vu, 0, sizeof(vu));
                vu.vtype = (rd_kafka_vtype_t)va_arg(*ap, int);
                if (vu.vtype == RD_KAFKA_VTYPE_END)
                        return n;
                if (!read_value(ap, &vu))
                        return -1;
                if (vus)
                        vus[n] = vu;
                n++;
        }
}

rd_kafka_resp_err_t rd_kafka_producev(rd_kafka_t *rk, ...) {
        va_list ap, again;
        long n;
        rd_kafka_vu_t *vus;
        rd_kafka_error_t *error;
        rd_kafka_resp_err_t err;

        /* first pass: count, so the entries fit one allocation */
        va_start(ap, rk);
        va_copy(again, ap);
        n = read_list(&ap, NULL);
        va_end(ap);
        if (n < 0) {
                va_end(again);
                return RD_KAFKA_RESP_ERR__INVALID_ARG;
        }
        vus = calloc((size_t)n + 1, sizeof(*vus));
        if (!vus) {
                va_end(again);
                return RD_KAFKA_RESP_ERR__FAIL;
        }
        read_list(&again, vus);
        va_end(again);

        error = rd_kafka_produceva(rk, vus, (size_t)n);
        free(vus);
        if (!error)
                return RD_KAFKA_RESP_ERR_NO_ERROR;
        err = rd_kafka_error_code(error);
        rd_kafka_error_destroy(error);
        return err;
}
