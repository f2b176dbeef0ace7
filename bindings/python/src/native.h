/* Shared declarations of gregor._native's files (_native.c: library,
 * helpers, Message accessors, module; producer.c; consumer.c). */
#ifndef GREGOR_PY_NATIVE_H
#define GREGOR_PY_NATIVE_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gregor.h"

#define SLICE_MS 100 /* longest wait without a signal check */
#define ERRSTR_SIZE 512
#define OFFSET_INVALID (-1001)

/* ---------------------------------------------------------------- library */

#define GREGOR_FUNCS(X)            \
    X(gregor_producer_set_dr_cb)   \
    X(gregor_producer_send)        \
    X(gregor_producer_poll)        \
    X(gregor_producer_flush)       \
    X(gregor_producer_len)         \
    X(gregor_producer_free)        \
    X(gregor_headers_new)          \
    X(gregor_headers_add)          \
    X(gregor_headers_free)         \
    X(gregor_consumer_poll)        \
    X(gregor_consumer_free)        \
    X(gregor_message_topic)        \
    X(gregor_message_partition)    \
    X(gregor_message_offset)       \
    X(gregor_message_key)          \
    X(gregor_message_value)        \
    X(gregor_message_timestamp)    \
    X(gregor_message_leader_epoch) \
    X(gregor_message_header_count) \
    X(gregor_message_header)       \
    X(gregor_message_err)          \
    X(gregor_message_errstr)       \
    X(gregor_message_latency)      \
    X(gregor_message_free)

#define DECLARE(name) extern __typeof__(name) *p_##name;
GREGOR_FUNCS(DECLARE)
#undef DECLARE


extern PyTypeObject *MessageType;
extern PyObject *KafkaErrorType, *raise_for_fn, *to_bytes_fn, *dr_error_fn;
enum { S_TOPIC, S_PARTITION, S_OFFSET, S_KEY, S_VALUE, S_HEADERS, S_TIMESTAMP, S_ERROR, S_LEADER_EPOCH,
       S_LATENCY, S_DELIVERY_COUNT, N_SLOTS };
extern Py_ssize_t slot_off[N_SLOTS];
extern PyObject *c_minus1, *c_offset_invalid, *c_latency_none, *c_ts_none;
extern PyObject *s_topic, *s_value, *s_key, *s_partition, *s_on_delivery, *s_timestamp, *s_headers, *s_callback,
    *s_timeout, *s_num_messages;

int need_lib(void);
PyObject *new_message(PyObject *vals[N_SLOTS]);
PyObject *ts_tuple(int type, int64_t ts);
PyObject *kafka_error(int code, const char *reason);
PyObject *raise_code(int code, const char *errstr, PyObject *reason);
double monotonic_s(void);
int slice_ms(int bounded, double deadline);
int timeout_ms_arg(PyObject *o, long long *out);
int raise_stored(PyObject **slot);
void keep_error(PyObject **slot);
int parse_timeout(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);

extern PyTypeObject ProducerBaseType, ConsumerBaseType;

#endif
