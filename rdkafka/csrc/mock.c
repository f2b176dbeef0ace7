/*
 * The variadic mock functions, which stable Rust cannot define:
 *
 * - rd_kafka_mock_push_request_errors reads its `cnt` error codes into an
 *   array and hands them to rd_kafka_mock_push_request_errors_array
 *   (src/mock.rs);
 * - rd_kafka_mock_broker_push_request_error_rtts reads its `cnt` pairs
 *   (error code, RTT in milliseconds, as rdkafka_mock.h documents) into two
 *   arrays and hands them to gregor_rdkafka_mock_broker_push_request_error_rtts
 *   (src/mock.rs), which this file declares hidden: the strictest
 *   visibility of a symbol wins at the link, so the library does not
 *   export that name, not one of librdkafka's.
 *
 * Compiled by build.rs against gregor's own headers and linked into
 * librdkafka.so.1 as an object file of its own, as producev.c.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "librdkafka/rdkafka.h"
#include "librdkafka/rdkafka_mock.h"

void rd_kafka_mock_push_request_errors(rd_kafka_mock_cluster_t *mcluster,
                                       int16_t ApiKey,
                                       size_t cnt,
                                       ...) {
        rd_kafka_resp_err_t *errors;
        va_list ap;
        size_t i;

        errors = malloc(sizeof(*errors) * (cnt ? cnt : 1));
        if (!errors)
                return;
        va_start(ap, cnt);
        for (i = 0; i < cnt; i++)
                errors[i] = va_arg(ap, rd_kafka_resp_err_t);
        va_end(ap);
        rd_kafka_mock_push_request_errors_array(mcluster, ApiKey, cnt, errors);
        free(errors);
}

__attribute__((visibility("hidden"))) rd_kafka_resp_err_t
gregor_rdkafka_mock_broker_push_request_error_rtts(rd_kafka_mock_cluster_t *mcluster,
                                           int32_t broker_id,
                                           int16_t ApiKey,
                                           size_t cnt,
                                           const rd_kafka_resp_err_t *errors,
                                           const int *rtts);

rd_kafka_resp_err_t
rd_kafka_mock_broker_push_request_error_rtts(rd_kafka_mock_cluster_t *mcluster,
                                             int32_t broker_id,
                                             int16_t ApiKey,
                                             size_t cnt,
                                             ...) {
        rd_kafka_resp_err_t *errors, err;
        int *rtts;
        va_list ap;
        size_t i;

        errors = malloc(sizeof(*errors) * (cnt ? cnt : 1));
        rtts   = malloc(sizeof(*rtts) * (cnt ? cnt : 1));
        if (!errors || !rtts) {
                free(errors);
                free(rtts);
                return RD_KAFKA_RESP_ERR__FAIL;
        }
        va_start(ap, cnt);
        for (i = 0; i < cnt; i++) {
                errors[i] = va_arg(ap, rd_kafka_resp_err_t);
                rtts[i]   = va_arg(ap, int);
        }
        va_end(ap);
        err = gregor_rdkafka_mock_broker_push_request_error_rtts(mcluster, broker_id,
                                                         ApiKey, cnt, errors,
                                                         rtts);
        free(errors);
        free(rtts);
        return err;
}
