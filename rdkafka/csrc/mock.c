/*
 * rd_kafka_mock_push_request_errors: the variadic form of pushing mock
 * request errors, which stable Rust cannot define. Reads its `cnt` error
 * codes into an array and hands them to
 * rd_kafka_mock_push_request_errors_array (src/mock.rs).
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
