/*
 * gregor._native: the Python binding's hot paths as a CPython extension
 * over libgregor's C ABI (include/gregor.h), as confluent-kafka's own C
 * extension (confluent_kafka.cimpl) sits over librdkafka.
 *
 * What is here: Producer.produce / poll / flush / __len__ with
 * delivery-report dispatch, Consumer.poll / consume building Message
 * objects. Everything else (configuration, admin, transactions, offsets,
 * rebalance and event callbacks) stays in Python over ctypes: it runs once
 * per call, not once per message.
 *
 * One library in the process: the extension is compiled against gregor.h
 * (every function pointer below has the header's exact type) but is not
 * linked to libgregor; setup() is given the dlopen handle of the libgregor
 * the package loaded (gregor._lib: GREGOR_LIBRARY, next to the package, or
 * the system's) and resolves its functions there with dlsym. Handles made by
 * the ctypes side are therefore always used with the same library.
 *
 * Blocking calls release the GIL and wait in slices of at most SLICE_MS,
 * checking for signals between slices (PyErr_CheckSignals), so Ctrl-C
 * interrupts poll(30) / consume / flush promptly (confluent-kafka's
 * "wakeable poll" does the same).
 *
 * Delivery reports: libgregor calls on_dr() inside gregor_producer_poll /
 * _flush / _close, possibly with the GIL released. on_dr() touches no
 * Python object: it appends a record to a mutex-protected buffer, and the
 * records are turned into Message objects and passed to the callbacks once
 * the GIL is held again (dispatch()).
 */
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

#define DECLARE(name) static __typeof__(name) *p_##name;
GREGOR_FUNCS(DECLARE)
#undef DECLARE

static int lib_ready = 0;

/* Python objects setup() is given */
static PyTypeObject *MessageType; /* gregor.Message (a class with __slots__) */
static PyObject *KafkaErrorType;  /* gregor.KafkaError */
static PyObject *raise_for_fn;    /* gregor.error.raise_for(code, errbuf, reason) */
static PyObject *to_bytes_fn;     /* gregor._lib.to_bytes(v) */
static PyObject *dr_error_fn;     /* gregor._dr_error(code, detail): a report's KafkaError */

/* Message's slots, in this order; their offsets come from the class's
 * member descriptors, so a Message is built with one allocation and eleven
 * stores (no Python-level __init__). */
static const char *const SLOT_NAMES[] = {"_topic", "_partition", "_offset", "_key", "_value", "_headers",
                                         "_timestamp", "_error", "_leader_epoch", "_latency", "_delivery_count"};
enum { S_TOPIC, S_PARTITION, S_OFFSET, S_KEY, S_VALUE, S_HEADERS, S_TIMESTAMP, S_ERROR, S_LEADER_EPOCH,
       S_LATENCY, S_DELIVERY_COUNT, N_SLOTS };
static Py_ssize_t slot_off[N_SLOTS];

/* constants */
static PyObject *c_minus1;         /* -1 */
static PyObject *c_offset_invalid; /* OFFSET_INVALID */
static PyObject *c_latency_none;   /* -1.0 */
static PyObject *c_ts_none;        /* (0, 0) */
static PyObject *s_topic, *s_value, *s_key, *s_partition, *s_on_delivery, *s_timestamp, *s_headers, *s_callback,
    *s_timeout, *s_num_messages;

static int need_lib(void)
{
    if (!lib_ready) {
        PyErr_SetString(PyExc_RuntimeError, "gregor._native: setup() has not been called");
        return -1;
    }
    return 0;
}

/* Builds a Message from eleven values (references stolen; NULL entries
 * mean an error happened while building them). */
static PyObject *new_message(PyObject *vals[N_SLOTS])
{
    int i;
    PyObject *m = NULL;
    for (i = 0; i < N_SLOTS; i++)
        if (vals[i] == NULL)
            goto fail;
    m = MessageType->tp_alloc(MessageType, 0);
    if (m == NULL)
        goto fail;
    for (i = 0; i < N_SLOTS; i++)
        *(PyObject **)((char *)m + slot_off[i]) = vals[i];
    /* What a Message holds (str, bytes, int, float, a tuple of ints, a
     * list of (str, bytes) tuples, a KafkaError) cannot refer back to it,
     * so the cyclic GC need not visit it: at 10^5 messages/s the
     * collections it would trigger cost more than building them. (A
     * program that makes a cycle through a setter, m.set_headers([m]),
     * leaks that message.) */
    PyObject_GC_UnTrack(m);
    return m;
fail:
    for (i = 0; i < N_SLOTS; i++)
        Py_XDECREF(vals[i]);
    return NULL;
}

static PyObject *ts_tuple(int type, int64_t ts)
{
    PyObject *t = PyTuple_New(2), *a, *b;
    if (t == NULL)
        return NULL;
    a = PyLong_FromLong(type);
    b = PyLong_FromLongLong(ts);
    if (a == NULL || b == NULL) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_DECREF(t);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 0, a);
    PyTuple_SET_ITEM(t, 1, b);
    return t;
}

static PyObject *kafka_error(int code, const char *reason)
{
    if (reason != NULL && *reason)
        return PyObject_CallFunction(KafkaErrorType, "is", code, reason);
    return PyObject_CallFunction(KafkaErrorType, "iO", code, Py_None);
}

/* Raises KafkaException for `code` through gregor.error.raise_for. */
static PyObject *raise_code(int code, const char *errstr, PyObject *reason)
{
    PyObject *r;
    if (reason == NULL) {
        if (errstr != NULL && *errstr)
            reason = PyUnicode_DecodeUTF8(errstr, strlen(errstr), "replace");
        else {
            reason = Py_None;
            Py_INCREF(reason);
        }
        if (reason == NULL)
            return NULL;
    } else
        Py_INCREF(reason);
    r = PyObject_CallFunction(raise_for_fn, "iOO", code, Py_None, reason);
    Py_DECREF(reason);
    Py_XDECREF(r);
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "gregor: error %d", code);
    return NULL;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A timeout argument in seconds (None or negative: infinite) as ms
 * (-1 infinite), as gregor._lib.ms. */
static int timeout_ms_arg(PyObject *o, long long *out)
{
    double t;
    if (o == NULL || o == Py_None) {
        *out = -1;
        return 0;
    }
    t = PyFloat_AsDouble(o);
    if (t == -1.0 && PyErr_Occurred())
        return -1;
    if (t < 0) {
        *out = -1;
        return 0;
    }
    t *= 1000.0;
    *out = t > 2147483647.0 ? 2147483647LL : (long long)t;
    return 0;
}

/* Moves a stored callback exception (member `_cb_error`) into the error
 * indicator. Returns -1 if there was one. */
static int raise_stored(PyObject **slot)
{
    PyObject *e = *slot;
    if (e == NULL || e == Py_None)
        return 0;
    *slot = NULL;
    if (PyExceptionInstance_Check(e))
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    else
        PyErr_SetObject(PyExc_RuntimeError, e);
    Py_DECREF(e);
    return -1;
}

static void keep_error(PyObject **slot)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != NULL && tb != NULL)
        PyException_SetTraceback(value, tb);
    if ((*slot == NULL || *slot == Py_None) && value != NULL) {
        Py_XDECREF(*slot);
        *slot = value;
        value = NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

/* Message accessors in C, installed on gregor.Message by setup() as method
 * descriptors (the Python class keeps its constructor, setters, equality
 * and pickling). */
static PyObject *slot_get(PyObject *self, int i)
{
    PyObject *v = *(PyObject **)((char *)self + slot_off[i]);
    if (v == NULL) {
        PyErr_Format(PyExc_TypeError, "descriptor requires a 'Message' object but received '%s'",
                     Py_TYPE(self)->tp_name);
        return NULL;
    }
    return v;
}

#define PLAIN_GETTER(fname, slot)                                \
    static PyObject *fname(PyObject *self, PyObject *unused)     \
    {                                                            \
        PyObject *v = slot_get(self, slot);                      \
        Py_XINCREF(v);                                           \
        return v;                                                \
    }
PLAIN_GETTER(msg_topic, S_TOPIC)
PLAIN_GETTER(msg_key, S_KEY)
PLAIN_GETTER(msg_value, S_VALUE)
PLAIN_GETTER(msg_headers, S_HEADERS)
PLAIN_GETTER(msg_timestamp, S_TIMESTAMP)
PLAIN_GETTER(msg_error, S_ERROR)
#undef PLAIN_GETTER

/* None when the slot is an int below `min` (partition -1, offset < 0, epoch < 0) */
static PyObject *int_or_none(PyObject *self, int slot, long min)
{
    PyObject *v = slot_get(self, slot);
    if (v == NULL)
        return NULL;
    if (PyLong_Check(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow == 0 && x < min)
            Py_RETURN_NONE;
    }
    Py_INCREF(v);
    return v;
}

static PyObject *msg_partition(PyObject *self, PyObject *unused)
{
    PyObject *v = slot_get(self, S_PARTITION);
    if (v == NULL)
        return NULL;
    if (PyLong_Check(v) && PyLong_AsLong(v) == -1 && !PyErr_Occurred())
        Py_RETURN_NONE;
    PyErr_Clear();
    Py_INCREF(v);
    return v;
}

static PyObject *msg_offset(PyObject *self, PyObject *unused)
{
    return int_or_none(self, S_OFFSET, 0);
}

static PyObject *msg_leader_epoch(PyObject *self, PyObject *unused)
{
    return int_or_none(self, S_LEADER_EPOCH, 0);
}

static PyObject *msg_latency(PyObject *self, PyObject *unused)
{
    PyObject *v = slot_get(self, S_LATENCY);
    if (v == NULL)
        return NULL;
    if (v == Py_None || (PyFloat_Check(v) && PyFloat_AS_DOUBLE(v) < 0))
        Py_RETURN_NONE;
    Py_INCREF(v);
    return v;
}

static PyMethodDef message_accessors[] = {
    {"topic", msg_topic, METH_NOARGS, "The topic name (str), or None."},
    {"partition", msg_partition, METH_NOARGS, "The partition, or None."},
    {"offset", msg_offset, METH_NOARGS, "The offset, or None."},
    {"key", msg_key, METH_NOARGS, "The key (bytes), or None."},
    {"value", msg_value, METH_NOARGS, "The value (bytes), or None."},
    {"headers", msg_headers, METH_NOARGS, "The headers: a list of (str, bytes) tuples, or None."},
    {"timestamp", msg_timestamp, METH_NOARGS, "(timestamp type, milliseconds since the epoch)."},
    {"error", msg_error, METH_NOARGS, "A KafkaError for an error event or failed delivery, else None."},
    {"leader_epoch", msg_leader_epoch, METH_NOARGS, "The partition leader's epoch, or None."},
    {"latency", msg_latency, METH_NOARGS, "Seconds from produce() to the delivery report, or None."},
    {NULL}};

/* ---------------------------------------------------------------- producer */

typedef struct {
    PyObject *entry; /* (callback, topic, key, value, headers), owned */
    int64_t offset;
    int64_t timestamp;
    int64_t latency;
    char *errstr; /* malloc'd, only with err */
    int32_t partition;
    int err;
} dr_rec;

typedef struct {
    PyObject_HEAD
    gregor_producer *ptr;
    PyObject *default_cb; /* _default_cb */
    PyObject *cb_error;   /* _cb_error */
    PyObject *keep;       /* _keep: ctypes callbacks the library holds */
    char only_error;      /* _only_error */
    pthread_mutex_t mu;   /* guards recs */
    dr_rec *recs;
    size_t nrecs, caprecs;
} ProducerObject;

static void on_dr(const gregor_delivery_report *dr, void *opaque)
{
    ProducerObject *self = (ProducerObject *)opaque;
    dr_rec r;
    if (dr == NULL || dr->msg_opaque == NULL)
        return; /* produced without a callback: nothing to do */
    r.entry = (PyObject *)dr->msg_opaque;
    r.partition = dr->partition;
    r.offset = dr->offset;
    r.timestamp = dr->timestamp;
    r.err = dr->err;
    r.errstr = (dr->err && dr->errstr != NULL) ? strdup(dr->errstr) : NULL;
    r.latency = dr->message != NULL ? p_gregor_message_latency(dr->message) : -1;
    pthread_mutex_lock(&self->mu);
    if (self->nrecs == self->caprecs) {
        size_t cap = self->caprecs ? self->caprecs * 2 : 1024;
        dr_rec *n = realloc(self->recs, cap * sizeof(dr_rec));
        if (n == NULL) {
            /* out of memory: the report is lost (its entry leaks) */
            pthread_mutex_unlock(&self->mu);
            free(r.errstr);
            return;
        }
        self->recs = n;
        self->caprecs = cap;
    }
    self->recs[self->nrecs++] = r;
    pthread_mutex_unlock(&self->mu);
}

/* Takes the buffered records (GIL held). */
static dr_rec *take_recs(ProducerObject *self, size_t *n)
{
    dr_rec *recs;
    pthread_mutex_lock(&self->mu);
    recs = self->recs;
    *n = self->nrecs;
    if (*n == 0) {
        pthread_mutex_unlock(&self->mu);
        return NULL;
    }
    self->recs = NULL;
    self->nrecs = self->caprecs = 0;
    pthread_mutex_unlock(&self->mu);
    return recs;
}

static void drop_recs(ProducerObject *self)
{
    size_t n, i;
    dr_rec *recs = take_recs(self, &n);
    for (i = 0; i < n; i++) {
        Py_DECREF(recs[i].entry);
        free(recs[i].errstr);
    }
    free(recs);
}

/* Runs the delivery callbacks of the buffered reports (GIL held). A
 * callback's exception is kept in _cb_error (the first one) and raised by
 * the poll/flush that served it, as confluent-kafka does; the other reports
 * are still delivered. */
static void dispatch(ProducerObject *self)
{
    size_t n, i;
    dr_rec *recs;
    while ((recs = take_recs(self, &n)) != NULL) {
        for (i = 0; i < n; i++) {
            dr_rec *r = &recs[i];
            PyObject *e = r->entry;
            PyObject *err, *msg, *res, *args[2];
            PyObject *vals[N_SLOTS];
            if (r->err) {
                err = PyObject_CallFunction(dr_error_fn, "iz", r->err, r->errstr);
                if (err == NULL) {
                    keep_error(&self->cb_error);
                    goto next;
                }
            } else {
                if (self->only_error)
                    goto next;
                err = Py_None;
                Py_INCREF(err);
            }
            vals[S_TOPIC] = PyTuple_GET_ITEM(e, 1);
            vals[S_KEY] = PyTuple_GET_ITEM(e, 2);
            vals[S_VALUE] = PyTuple_GET_ITEM(e, 3);
            vals[S_HEADERS] = PyTuple_GET_ITEM(e, 4);
            Py_INCREF(vals[S_TOPIC]);
            Py_INCREF(vals[S_KEY]);
            Py_INCREF(vals[S_VALUE]);
            Py_INCREF(vals[S_HEADERS]);
            vals[S_PARTITION] = PyLong_FromLong(r->partition < 0 ? -1 : r->partition);
            vals[S_OFFSET] = r->offset < 0 ? (Py_INCREF(c_offset_invalid), c_offset_invalid)
                                           : PyLong_FromLongLong(r->offset);
            if (r->timestamp > 0)
                vals[S_TIMESTAMP] = ts_tuple(1, r->timestamp);
            else {
                vals[S_TIMESTAMP] = c_ts_none;
                Py_INCREF(c_ts_none);
            }
            Py_INCREF(err);
            vals[S_ERROR] = err;
            vals[S_LEADER_EPOCH] = c_minus1;
            Py_INCREF(c_minus1);
            if (r->latency >= 0)
                vals[S_LATENCY] = PyFloat_FromDouble((double)r->latency / 1e6);
            else {
                vals[S_LATENCY] = c_latency_none;
                Py_INCREF(c_latency_none);
            }
            vals[S_DELIVERY_COUNT] = c_minus1;
            Py_INCREF(c_minus1);
            msg = new_message(vals);
            if (msg == NULL) {
                Py_DECREF(err);
                keep_error(&self->cb_error);
                goto next;
            }
            args[0] = err;
            args[1] = msg;
            res = PyObject_Vectorcall(PyTuple_GET_ITEM(e, 0), args, 2, NULL);
            Py_DECREF(msg);
            Py_DECREF(err);
            if (res == NULL)
                keep_error(&self->cb_error);
            else
                Py_DECREF(res);
        next:
            Py_DECREF(e);
            free(r->errstr);
        }
        free(recs);
    }
}

static PyObject *Producer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    ProducerObject *self = (ProducerObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    pthread_mutex_init(&self->mu, NULL);
    return (PyObject *)self;
}

/* Frees the library handle (GIL released: the library's threads may need
 * it to finish); buffered reports are dispatched if `deliver`. */
static void producer_release(ProducerObject *self, int deliver)
{
    gregor_producer *p = self->ptr;
    if (p == NULL)
        return;
    self->ptr = NULL;
    Py_BEGIN_ALLOW_THREADS
    p_gregor_producer_free(p);
    Py_END_ALLOW_THREADS
    if (deliver)
        dispatch(self);
    else
        drop_recs(self);
}

static void Producer_finalize(PyObject *o)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    producer_release((ProducerObject *)o, 0);
    PyErr_Restore(type, value, tb);
}

static int Producer_traverse(ProducerObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->default_cb);
    Py_VISIT(self->cb_error);
    Py_VISIT(self->keep);
    return 0;
}

static int Producer_clear(ProducerObject *self)
{
    Py_CLEAR(self->default_cb);
    Py_CLEAR(self->cb_error);
    /* keep is cleared only once the handle is freed (dealloc) */
    return 0;
}

static void Producer_dealloc(ProducerObject *self)
{
    PyObject_GC_UnTrack(self);
    if (PyObject_CallFinalizerFromDealloc((PyObject *)self) < 0)
        return;
    producer_release(self, 0);
    drop_recs(self);
    Producer_clear(self);
    Py_CLEAR(self->keep);
    free(self->recs);
    pthread_mutex_destroy(&self->mu);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static gregor_producer *producer_ptr(ProducerObject *self)
{
    if (self->ptr == NULL)
        PyErr_SetString(PyExc_RuntimeError, "Producer has been closed");
    return self->ptr;
}

/* _native_attach(address): takes over the gregor_producer made by the
 * ctypes side and installs the delivery-report callback. */
static PyObject *Producer_attach(ProducerObject *self, PyObject *arg)
{
    void *p = PyLong_AsVoidPtr(arg);
    int rc;
    if (p == NULL && PyErr_Occurred())
        return NULL;
    if (need_lib() < 0)
        return NULL;
    if (self->ptr != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Producer already has a handle");
        return NULL;
    }
    rc = p_gregor_producer_set_dr_cb((gregor_producer *)p, on_dr, self);
    if (rc != 0)
        return raise_code(rc, NULL, NULL);
    self->ptr = (gregor_producer *)p;
    Py_RETURN_NONE;
}

static PyObject *Producer_hfree(ProducerObject *self, PyObject *unused)
{
    producer_release(self, 1);
    Py_RETURN_NONE;
}

static PyObject *Producer_hptr(ProducerObject *self, void *closure)
{
    if (self->ptr == NULL)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(self->ptr);
}

/* The buffer for a key / value / header value: None, bytes, str (UTF-8)
 * or, through gregor._lib.to_bytes, bytearray / memoryview (TypeError for
 * anything else). *obj gets a new reference to what the callback's Message
 * shows (the bytes object; None for None) when want_obj, else what keeps
 * the buffer alive (or NULL). */
static int buf_of(PyObject *v, int want_obj, PyObject **obj, const char **ptr, Py_ssize_t *len)
{
    *obj = NULL;
    if (v == NULL || v == Py_None) {
        *ptr = NULL;
        *len = 0;
        if (want_obj) {
            *obj = Py_None;
            Py_INCREF(Py_None);
        }
        return 0;
    }
    if (PyBytes_CheckExact(v)) {
        *ptr = PyBytes_AS_STRING(v);
        *len = PyBytes_GET_SIZE(v);
        if (want_obj) {
            *obj = v;
            Py_INCREF(v);
        }
        return 0;
    }
    if (PyUnicode_Check(v) && !want_obj) {
        *ptr = PyUnicode_AsUTF8AndSize(v, len);
        return *ptr == NULL ? -1 : 0;
    }
    *obj = PyObject_CallOneArg(to_bytes_fn, v);
    if (*obj == NULL)
        return -1;
    if (!PyBytes_Check(*obj)) {
        Py_CLEAR(*obj);
        PyErr_SetString(PyExc_TypeError, "expected str, bytes or None");
        return -1;
    }
    *ptr = PyBytes_AS_STRING(*obj);
    *len = PyBytes_GET_SIZE(*obj);
    return 0;
}

/* A header name as gregor._lib.cstr: str as UTF-8, bytes as is, anything
 * else through str(). Returns a new bytes reference. */
static PyObject *name_bytes(PyObject *name)
{
    PyObject *s, *b;
    if (PyBytes_Check(name)) {
        Py_INCREF(name);
        return name;
    }
    if (PyUnicode_Check(name))
        return PyUnicode_AsUTF8String(name);
    s = PyObject_Str(name);
    if (s == NULL)
        return NULL;
    b = PyUnicode_AsUTF8String(s);
    Py_DECREF(s);
    return b;
}

/* Builds gregor_headers from a dict or an iterable of (name, value) pairs;
 * *hlist gets [(name, value bytes)] when want_list. */
static gregor_headers *build_headers(PyObject *headers, int want_list, PyObject **hlist)
{
    PyObject *items = NULL, *it = NULL, *item;
    gregor_headers *h = NULL;
    *hlist = NULL;
    /* a list of (name, value) tuples or a dict, as confluent-kafka: TypeError otherwise */
    if (PyDict_Check(headers))
        items = PyDict_Items(headers);
    else if (PyList_Check(headers)) {
        items = headers;
        Py_INCREF(items);
    } else {
        PyErr_SetString(PyExc_TypeError, "Headers are expected to be a list of (key, value) tuples or a dict");
        return NULL;
    }
    if (items == NULL)
        return NULL;
    it = PyObject_GetIter(items);
    if (it == NULL)
        goto fail;
    if (want_list && (*hlist = PyList_New(0)) == NULL)
        goto fail;
    h = p_gregor_headers_new();
    if (h == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        PyObject *pair = item, *name, *hv, *nb = NULL, *vobj = NULL;
        const char *vp;
        Py_ssize_t vn;
        int rc;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "Headers are expected to be a list of (key, value) tuples");
            Py_DECREF(pair);
            goto fail;
        }
        name = PyTuple_GET_ITEM(pair, 0);
        hv = PyTuple_GET_ITEM(pair, 1);
        if (buf_of(hv, 1, &vobj, &vp, &vn) < 0 || (nb = name_bytes(name)) == NULL) {
            Py_XDECREF(vobj);
            Py_DECREF(pair);
            goto fail;
        }
        rc = p_gregor_headers_add(h, PyBytes_AS_STRING(nb), (const uint8_t *)vp, (size_t)vn);
        Py_DECREF(nb);
        if (rc != 0) {
            PyObject *reason = PyUnicode_FromFormat("invalid header %R", name);
            Py_DECREF(vobj);
            Py_DECREF(pair);
            if (reason != NULL) {
                raise_code(rc, NULL, reason);
                Py_DECREF(reason);
            }
            goto fail;
        }
        if (want_list) {
            PyObject *t = PyTuple_Pack(2, name, vobj);
            if (t == NULL || PyList_Append(*hlist, t) < 0) {
                Py_XDECREF(t);
                Py_DECREF(vobj);
                Py_DECREF(pair);
                goto fail;
            }
            Py_DECREF(t);
        }
        Py_DECREF(vobj);
        Py_DECREF(pair);
    }
    if (PyErr_Occurred())
        goto fail;
    Py_DECREF(it);
    Py_DECREF(items);
    return h;
fail:
    Py_XDECREF(it);
    Py_XDECREF(items);
    Py_CLEAR(*hlist);
    if (h != NULL)
        p_gregor_headers_free(h);
    return NULL;
}

static int truthy(PyObject *o)
{
    if (o == NULL || o == Py_None)
        return 0;
    return PyObject_IsTrue(o);
}

/* produce(topic, value=None, key=None, partition=-1, on_delivery=None,
 *         timestamp=0, headers=None, callback=None) */
static PyObject *Producer_produce(ProducerObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *const names[8] = {s_topic, s_value, s_key, s_partition, s_on_delivery, s_timestamp, s_headers,
                                s_callback};
    PyObject *topic, *cb = NULL, *kobj = NULL, *vobj = NULL, *hlist = NULL, *entry = NULL;
    const char *kp, *vp, *tp;
    Py_ssize_t kn, vn, i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    gregor_headers *hdrs = NULL;
    int32_t partition = -1;
    int64_t timestamp = 0;
    int rc, t;
    char eb[ERRSTR_SIZE];
    gregor_producer *p;

    if (nargs > 8) {
        PyErr_Format(PyExc_TypeError, "produce() takes at most 8 arguments (%zd given)", nargs);
        return NULL;
    }
    for (i = 0; i < nargs; i++)
        a[i] = args[i];
    for (i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        int j;
        for (j = 0; j < 8; j++)
            if (k == names[j])
                break;
        if (j == 8)
            for (j = 0; j < 8; j++)
                if (PyUnicode_Compare(k, names[j]) == 0)
                    break;
        if (j == 8) {
            PyErr_Format(PyExc_TypeError, "produce() got an unexpected keyword argument '%U'", k);
            return NULL;
        }
        if (a[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "produce() got multiple values for argument '%U'", k);
            return NULL;
        }
        a[j] = args[nargs + i];
    }
    if (a[0] == NULL) {
        PyErr_SetString(PyExc_TypeError, "produce() missing required argument 'topic' (pos 1)");
        return NULL;
    }
    if ((p = producer_ptr(self)) == NULL)
        return NULL;
    topic = a[0];
    if (!PyUnicode_Check(topic)) {
        PyErr_SetString(PyExc_TypeError, "topic must be str");
        return NULL;
    }
    /* on_delivery or callback or the configured one (Python's `or`) */
    if ((t = truthy(a[4])) < 0)
        return NULL;
    if (t)
        cb = a[4];
    else {
        if ((t = truthy(a[7])) < 0)
            return NULL;
        if (t)
            cb = a[7];
        else {
            if ((t = truthy(self->default_cb)) < 0)
                return NULL;
            if (t)
                cb = self->default_cb;
        }
    }
    if (buf_of(a[2], cb != NULL, &kobj, &kp, &kn) < 0)
        return NULL;
    if (buf_of(a[1], cb != NULL, &vobj, &vp, &vn) < 0)
        goto done;
    if (a[3] != NULL && a[3] != Py_None) {
        long v;
        if (PyLong_CheckExact(a[3]))
            v = PyLong_AsLong(a[3]);
        else {
            PyObject *n = PyNumber_Long(a[3]);
            if (n == NULL)
                goto done;
            v = PyLong_AsLong(n);
            Py_DECREF(n);
        }
        if (v == -1 && PyErr_Occurred())
            goto done;
        partition = (int32_t)v;
    } else if (a[3] == Py_None) {
        PyErr_SetString(PyExc_TypeError, "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'");
        goto done;
    }
    if (a[5] != NULL) {
        if ((t = truthy(a[5])) < 0)
            goto done;
        if (t) {
            PyObject *n = PyNumber_Long(a[5]);
            long long v;
            if (n == NULL)
                goto done;
            v = PyLong_AsLongLong(n);
            Py_DECREF(n);
            if (v == -1 && PyErr_Occurred())
                goto done;
            timestamp = v;
        }
    }
    if (a[6] != NULL) {
        if ((t = truthy(a[6])) < 0)
            goto done;
        if (t && (hdrs = build_headers(a[6], cb != NULL, &hlist)) == NULL)
            goto done;
    }
    if ((tp = PyUnicode_AsUTF8(topic)) == NULL)
        goto done;
    if (cb != NULL) {
        entry = PyTuple_New(5);
        if (entry == NULL)
            goto done;
        Py_INCREF(cb);
        PyTuple_SET_ITEM(entry, 0, cb);
        Py_INCREF(topic);
        PyTuple_SET_ITEM(entry, 1, topic);
        PyTuple_SET_ITEM(entry, 2, kobj);
        PyTuple_SET_ITEM(entry, 3, vobj);
        if (hlist == NULL) {
            hlist = Py_None;
            Py_INCREF(hlist);
        }
        PyTuple_SET_ITEM(entry, 4, hlist);
        kobj = vobj = hlist = NULL; /* owned by entry now */
    }
    eb[0] = '\0';
    rc = p_gregor_producer_send(p, tp, partition, (const uint8_t *)kp, (size_t)kn, (const uint8_t *)vp, (size_t)vn,
                                hdrs, timestamp, entry, 0, eb, sizeof eb);
    if (rc != 0) {
        Py_CLEAR(entry);
        if (rc == GREGOR_ERR__QUEUE_FULL)
            PyErr_SetString(PyExc_BufferError, eb[0] ? eb : "Local: Queue full");
        else
            raise_code(rc, eb, NULL);
        goto done;
    }
    entry = NULL; /* the library holds it until its report */
done:
    if (hdrs != NULL)
        p_gregor_headers_free(hdrs);
    Py_XDECREF(kobj);
    Py_XDECREF(vobj);
    Py_XDECREF(hlist);
    Py_XDECREF(entry);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* Parses an optional single `timeout` argument (positional or keyword). */
static int parse_timeout(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    *out = NULL;
    if (nargs + nkw > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument (%zd given)", fname, nargs + nkw);
        return -1;
    }
    if (nargs == 1)
        *out = args[0];
    else if (nkw == 1) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, 0);
        if (k != s_timeout && PyUnicode_Compare(k, s_timeout) != 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, k);
            return -1;
        }
        *out = args[0];
    }
    return 0;
}

/* poll(timeout=None): serves delivery reports, waiting up to `timeout` s
 * (None or negative: until one is served). Returns how many. */
static PyObject *Producer_poll(ProducerObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *to;
    long long tms;
    double deadline = 0;
    gregor_producer *p;
    int n;
    if (parse_timeout("poll", args, nargs, kwnames, &to) < 0 || timeout_ms_arg(to, &tms) < 0)
        return NULL;
    if ((p = producer_ptr(self)) == NULL)
        return NULL;
    if (tms == 0) {
        /* nothing to wait for: no need to let go of the GIL */
        n = p_gregor_producer_poll(p, 0);
        dispatch(self);
        if (raise_stored(&self->cb_error) < 0)
            return NULL;
        return PyLong_FromLong(n);
    }
    if (tms > 0)
        deadline = monotonic_s() + tms / 1000.0;
    for (;;) {
        int wait = SLICE_MS;
        if (tms > 0) {
            double left = deadline - monotonic_s();
            if (left < 0)
                left = 0;
            if (left * 1000.0 < wait)
                wait = (int)(left * 1000.0);
        }
        Py_BEGIN_ALLOW_THREADS
        n = p_gregor_producer_poll(p, wait);
        Py_END_ALLOW_THREADS
        dispatch(self);
        if (raise_stored(&self->cb_error) < 0)
            return NULL;
        if (n > 0 || (tms > 0 && monotonic_s() >= deadline))
            return PyLong_FromLong(n);
        if (PyErr_CheckSignals() < 0)
            return NULL;
        if ((p = producer_ptr(self)) == NULL)
            return NULL;
    }
}

/* flush(timeout=None): waits until every message has its report (served
 * meanwhile), up to `timeout` s. Returns how many are left. */
static PyObject *Producer_flush(ProducerObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *to;
    long long tms;
    double deadline = 0;
    gregor_producer *p;
    if (parse_timeout("flush", args, nargs, kwnames, &to) < 0 || timeout_ms_arg(to, &tms) < 0)
        return NULL;
    if ((p = producer_ptr(self)) == NULL)
        return NULL;
    if (tms >= 0)
        deadline = monotonic_s() + tms / 1000.0;
    for (;;) {
        int wait = SLICE_MS, rc;
        if (tms >= 0) {
            double left = deadline - monotonic_s();
            if (left < 0)
                left = 0;
            if (left * 1000.0 < wait)
                wait = (int)(left * 1000.0);
        }
        Py_BEGIN_ALLOW_THREADS
        rc = p_gregor_producer_flush(p, wait);
        Py_END_ALLOW_THREADS
        dispatch(self);
        if (raise_stored(&self->cb_error) < 0)
            return NULL;
        if (rc == 0 || (tms >= 0 && monotonic_s() >= deadline))
            break;
        if (PyErr_CheckSignals() < 0)
            return NULL;
        if ((p = producer_ptr(self)) == NULL)
            return NULL;
    }
    return PyLong_FromSize_t(p_gregor_producer_len(p));
}

static Py_ssize_t Producer_len(ProducerObject *self)
{
    if (self->ptr == NULL)
        return 0;
    return (Py_ssize_t)p_gregor_producer_len(self->ptr);
}

/* _native_dispatch(): serves buffered reports (after a close through ctypes). */
static PyObject *Producer_dispatch(ProducerObject *self, PyObject *unused)
{
    dispatch(self);
    Py_RETURN_NONE;
}

static PyMethodDef Producer_methods[] = {
    {"produce", (PyCFunction)(void (*)(void))Producer_produce, METH_FASTCALL | METH_KEYWORDS,
     "produce(topic, value=None, key=None, partition=-1, on_delivery=None, timestamp=0, headers=None)\n\n"
     "Queues a message; its delivery report comes to on_delivery(err, msg) in poll/flush. Raises\n"
     "BufferError when the queue is full and KafkaException for other errors."},
    {"poll", (PyCFunction)(void (*)(void))Producer_poll, METH_FASTCALL | METH_KEYWORDS,
     "poll(timeout=None)\n\nServes delivery reports, waiting up to timeout s (None: until one). Returns how many."},
    {"flush", (PyCFunction)(void (*)(void))Producer_flush, METH_FASTCALL | METH_KEYWORDS,
     "flush(timeout=None)\n\nWaits until every message has its report (served meanwhile). Returns how many are left."},
    {"_native_attach", (PyCFunction)Producer_attach, METH_O, NULL},
    {"_native_dispatch", (PyCFunction)Producer_dispatch, METH_NOARGS, NULL},
    {"_hfree", (PyCFunction)Producer_hfree, METH_NOARGS, NULL},
    {NULL}};

static PyMemberDef Producer_members[] = {
    {"_default_cb", T_OBJECT, offsetof(ProducerObject, default_cb), 0, NULL},
    {"_cb_error", T_OBJECT, offsetof(ProducerObject, cb_error), 0, NULL},
    {"_keep", T_OBJECT, offsetof(ProducerObject, keep), 0, NULL},
    {"_only_error", T_BOOL, offsetof(ProducerObject, only_error), 0, NULL},
    {NULL}};

static PyGetSetDef Producer_getset[] = {{"_hptr", (getter)Producer_hptr, NULL, NULL, NULL}, {NULL}};

static PySequenceMethods Producer_as_sequence = {.sq_length = (lenfunc)Producer_len};

static PyTypeObject ProducerBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gregor._native.ProducerBase",
    .tp_basicsize = sizeof(ProducerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The compiled part of gregor.Producer.",
    .tp_new = Producer_new,
    .tp_dealloc = (destructor)Producer_dealloc,
    .tp_finalize = Producer_finalize,
    .tp_traverse = (traverseproc)Producer_traverse,
    .tp_clear = (inquiry)Producer_clear,
    .tp_methods = Producer_methods,
    .tp_members = Producer_members,
    .tp_getset = Producer_getset,
    .tp_as_sequence = &Producer_as_sequence,
};

/* ---------------------------------------------------------------- consumer */

typedef struct {
    PyObject_HEAD
    gregor_consumer *ptr;
    PyObject *cb_error; /* _cb_error */
    PyObject *keep;     /* _keep */
    char closed;        /* _closed */
    PyObject *topic_obj; /* the last topic name seen, reused */
    char *topic_c;
} ConsumerObject;

static PyObject *Consumer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    return type->tp_alloc(type, 0);
}

static void consumer_release(ConsumerObject *self)
{
    gregor_consumer *p = self->ptr;
    if (p == NULL)
        return;
    self->ptr = NULL;
    Py_BEGIN_ALLOW_THREADS
    p_gregor_consumer_free(p);
    Py_END_ALLOW_THREADS
}

static void Consumer_finalize(PyObject *o)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    consumer_release((ConsumerObject *)o);
    PyErr_Restore(type, value, tb);
}

static int Consumer_traverse(ConsumerObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->cb_error);
    Py_VISIT(self->keep);
    return 0;
}

static int Consumer_clear(ConsumerObject *self)
{
    Py_CLEAR(self->cb_error);
    return 0;
}

static void Consumer_dealloc(ConsumerObject *self)
{
    PyObject_GC_UnTrack(self);
    if (PyObject_CallFinalizerFromDealloc((PyObject *)self) < 0)
        return;
    consumer_release(self);
    Consumer_clear(self);
    Py_CLEAR(self->keep);
    Py_CLEAR(self->topic_obj);
    free(self->topic_c);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static gregor_consumer *consumer_ptr(ConsumerObject *self)
{
    if (self->ptr == NULL || self->closed) {
        PyErr_SetString(PyExc_RuntimeError, "Consumer closed");
        return NULL;
    }
    return self->ptr;
}

static PyObject *Consumer_attach(ConsumerObject *self, PyObject *arg)
{
    void *p = PyLong_AsVoidPtr(arg);
    if (p == NULL && PyErr_Occurred())
        return NULL;
    if (need_lib() < 0)
        return NULL;
    if (self->ptr != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Consumer already has a handle");
        return NULL;
    }
    self->ptr = (gregor_consumer *)p;
    Py_RETURN_NONE;
}

static PyObject *Consumer_hfree(ConsumerObject *self, PyObject *unused)
{
    consumer_release(self);
    Py_RETURN_NONE;
}

static PyObject *Consumer_hptr(ConsumerObject *self, void *closure)
{
    if (self->ptr == NULL)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(self->ptr);
}

static PyObject *slice_bytes(gregor_slice s)
{
    if (s.ptr == NULL)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)s.ptr, (Py_ssize_t)s.len);
}

static PyObject *topic_of(ConsumerObject *self, const char *t)
{
    size_t n;
    if (t == NULL || *t == '\0')
        Py_RETURN_NONE;
    if (self->topic_c != NULL && strcmp(self->topic_c, t) == 0) {
        Py_INCREF(self->topic_obj);
        return self->topic_obj;
    }
    n = strlen(t);
    PyObject *o = PyUnicode_DecodeUTF8(t, (Py_ssize_t)n, "replace");
    if (o == NULL)
        return NULL;
    char *c = malloc(n + 1);
    if (c != NULL) {
        memcpy(c, t, n + 1);
        free(self->topic_c);
        self->topic_c = c;
        Py_XSETREF(self->topic_obj, o);
        Py_INCREF(o);
    }
    return o;
}

/* A Message from a consumed gregor_message (borrowed). */
static PyObject *message_from(ConsumerObject *self, const gregor_message *h)
{
    PyObject *vals[N_SLOTS];
    int err = p_gregor_message_err(h), tstype = 0;
    int64_t off = p_gregor_message_offset(h), ts;
    int32_t ep;
    size_t nh = p_gregor_message_header_count(h), i;
    vals[S_TOPIC] = topic_of(self, p_gregor_message_topic(h));
    vals[S_PARTITION] = PyLong_FromLong(p_gregor_message_partition(h));
    vals[S_OFFSET] = off >= 0 ? PyLong_FromLongLong(off) : (Py_INCREF(c_offset_invalid), c_offset_invalid);
    vals[S_KEY] = slice_bytes(p_gregor_message_key(h));
    vals[S_VALUE] = slice_bytes(p_gregor_message_value(h));
    if (nh == 0) {
        vals[S_HEADERS] = Py_None;
        Py_INCREF(Py_None);
    } else {
        PyObject *l = PyList_New(0);
        for (i = 0; l != NULL && i < nh; i++) {
            gregor_slice name = {0}, value = {0};
            PyObject *n, *v, *t;
            if (p_gregor_message_header(h, i, &name, &value) != 0)
                continue;
            n = PyUnicode_DecodeUTF8(name.ptr ? (const char *)name.ptr : "", (Py_ssize_t)(name.ptr ? name.len : 0),
                                     "replace");
            v = slice_bytes(value);
            t = (n && v) ? PyTuple_Pack(2, n, v) : NULL;
            Py_XDECREF(n);
            Py_XDECREF(v);
            if (t == NULL || PyList_Append(l, t) < 0)
                Py_CLEAR(l);
            Py_XDECREF(t);
        }
        vals[S_HEADERS] = l;
    }
    ts = p_gregor_message_timestamp(h, &tstype);
    vals[S_TIMESTAMP] = tstype == 0 ? (Py_INCREF(c_ts_none), c_ts_none) : ts_tuple(tstype, ts);
    vals[S_ERROR] = err ? kafka_error(err, p_gregor_message_errstr(h)) : (Py_INCREF(Py_None), Py_None);
    ep = p_gregor_message_leader_epoch(h);
    vals[S_LEADER_EPOCH] = ep >= 0 ? PyLong_FromLong(ep) : (Py_INCREF(c_minus1), c_minus1);
    vals[S_LATENCY] = c_latency_none;
    Py_INCREF(c_latency_none);
    vals[S_DELIVERY_COUNT] = c_minus1;
    Py_INCREF(c_minus1);
    return new_message(vals);
}

/* One library poll of up to wait_ms (GIL released if wait_ms > 0); then a
 * stored callback exception is raised. Returns a Message, Py_None (nothing)
 * or NULL (error). */
static PyObject *poll_once(ConsumerObject *self, gregor_consumer *p, int wait_ms)
{
    gregor_message *h;
    PyObject *m;
    if (wait_ms > 0) {
        Py_BEGIN_ALLOW_THREADS
        h = p_gregor_consumer_poll(p, wait_ms);
        Py_END_ALLOW_THREADS
    } else
        h = p_gregor_consumer_poll(p, 0);
    if (raise_stored(&self->cb_error) < 0) {
        if (h != NULL)
            p_gregor_message_free(h);
        return NULL;
    }
    if (h == NULL)
        Py_RETURN_NONE;
    m = message_from(self, h);
    p_gregor_message_free(h);
    return m;
}

/* poll(timeout=None): the next message or error event, or None after
 * `timeout` s (None or negative: wait). */
static PyObject *Consumer_poll(ConsumerObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *to, *m;
    long long tms;
    double deadline = 0;
    gregor_consumer *p;
    if (parse_timeout("poll", args, nargs, kwnames, &to) < 0 || timeout_ms_arg(to, &tms) < 0)
        return NULL;
    if ((p = consumer_ptr(self)) == NULL)
        return NULL;
    if (tms == 0)
        return poll_once(self, p, 0);
    /* the first slice without reading the clock: a message is usually there */
    m = poll_once(self, p, tms > 0 && tms < SLICE_MS ? (int)tms : SLICE_MS);
    if (m != Py_None)
        return m;
    Py_DECREF(m);
    if (tms > 0 && tms <= SLICE_MS)
        Py_RETURN_NONE;
    if (PyErr_CheckSignals() < 0)
        return NULL;
    if ((p = consumer_ptr(self)) == NULL)
        return NULL;
    if (tms > 0)
        deadline = monotonic_s() + (tms - SLICE_MS) / 1000.0;
    for (;;) {
        int wait = SLICE_MS;
        if (tms > 0) {
            double left = deadline - monotonic_s();
            if (left < 0)
                left = 0;
            if (left * 1000.0 < wait)
                wait = (int)(left * 1000.0);
        }
        m = poll_once(self, p, wait);
        if (m != Py_None)
            return m;
        Py_DECREF(m);
        if (tms > 0 && monotonic_s() >= deadline)
            Py_RETURN_NONE;
        if (PyErr_CheckSignals() < 0)
            return NULL;
        if ((p = consumer_ptr(self)) == NULL)
            return NULL;
    }
}

/* consume(num_messages=1, timeout=-1): up to num_messages messages, waiting
 * up to `timeout` s (negative / None: until there are that many). */
static PyObject *Consumer_consume(ConsumerObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"num_messages", "timeout", NULL};
    PyObject *num = NULL, *to = NULL, *out = NULL, *m;
    long long tms, n;
    double deadline = 0;
    gregor_consumer *p;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:consume", kwlist, &num, &to))
        return NULL;
    if ((p = consumer_ptr(self)) == NULL)
        return NULL;
    if (num == NULL)
        n = 1;
    else {
        if (PyBool_Check(num) || !PyLong_Check(num)) {
            PyErr_SetString(PyExc_TypeError, "num_messages must be an integer");
            return NULL;
        }
        n = PyLong_AsLongLong(num);
        if (n == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            n = -1;
        }
        if (n < 0 || n > 1000000) {
            PyErr_SetString(PyExc_ValueError, "num_messages must be between 0 and 1000000 (1M)");
            return NULL;
        }
    }
    if (timeout_ms_arg(to, &tms) < 0)
        return NULL;
    if ((out = PyList_New(0)) == NULL)
        return NULL;
    if (n == 0)
        return out;
    if (tms >= 0)
        deadline = monotonic_s() + tms / 1000.0;
    while (PyList_GET_SIZE(out) < n) {
        int wait = SLICE_MS;
        /* what is there already, without letting go of the GIL */
        m = poll_once(self, p, 0);
        if (m == NULL)
            goto fail;
        if (m != Py_None) {
            int rc = PyList_Append(out, m);
            Py_DECREF(m);
            if (rc < 0)
                goto fail;
            /* messages keep coming: still answer Ctrl-C (a cheap flag test) */
            if ((PyList_GET_SIZE(out) & 255) == 0 && PyErr_CheckSignals() < 0)
                goto fail;
            continue;
        }
        Py_DECREF(m);
        if (tms >= 0) {
            double left = deadline - monotonic_s();
            if (left <= 0)
                break;
            if (left * 1000.0 < wait)
                wait = (int)(left * 1000.0) + 1;
        }
        m = poll_once(self, p, wait);
        if (m == NULL)
            goto fail;
        if (m != Py_None) {
            int rc = PyList_Append(out, m);
            Py_DECREF(m);
            if (rc < 0)
                goto fail;
        } else
            Py_DECREF(m);
        if (PyErr_CheckSignals() < 0)
            goto fail;
        if ((p = consumer_ptr(self)) == NULL)
            goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef Consumer_methods[] = {
    {"poll", (PyCFunction)(void (*)(void))Consumer_poll, METH_FASTCALL | METH_KEYWORDS,
     "poll(timeout=None)\n\nThe next message or error event, or None after timeout s (None: wait)."},
    {"consume", (PyCFunction)(void (*)(void))Consumer_consume, METH_VARARGS | METH_KEYWORDS,
     "consume(num_messages=1, timeout=-1)\n\nUp to num_messages messages, waiting up to timeout s "
     "(-1: until there are that many)."},
    {"_native_attach", (PyCFunction)Consumer_attach, METH_O, NULL},
    {"_hfree", (PyCFunction)Consumer_hfree, METH_NOARGS, NULL},
    {NULL}};

static PyMemberDef Consumer_members[] = {{"_cb_error", T_OBJECT, offsetof(ConsumerObject, cb_error), 0, NULL},
                                         {"_keep", T_OBJECT, offsetof(ConsumerObject, keep), 0, NULL},
                                         {"_closed", T_BOOL, offsetof(ConsumerObject, closed), 0, NULL},
                                         {NULL}};

static PyGetSetDef Consumer_getset[] = {{"_hptr", (getter)Consumer_hptr, NULL, NULL, NULL}, {NULL}};

static PyTypeObject ConsumerBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gregor._native.ConsumerBase",
    .tp_basicsize = sizeof(ConsumerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The compiled part of gregor.Consumer.",
    .tp_new = Consumer_new,
    .tp_dealloc = (destructor)Consumer_dealloc,
    .tp_finalize = Consumer_finalize,
    .tp_traverse = (traverseproc)Consumer_traverse,
    .tp_clear = (inquiry)Consumer_clear,
    .tp_methods = Consumer_methods,
    .tp_members = Consumer_members,
    .tp_getset = Consumer_getset,
};

/* ---------------------------------------------------------------- module */

/* setup(dl_handle, Message, KafkaError, raise_for, to_bytes, dr_error) */
static PyObject *mod_setup(PyObject *m, PyObject *args)
{
    PyObject *h, *msg, *ke, *rf, *tb, *de;
    void *dl;
    int i;
    if (!PyArg_ParseTuple(args, "OO!OOOO:setup", &h, &PyType_Type, &msg, &ke, &rf, &tb, &de))
        return NULL;
    dl = PyLong_AsVoidPtr(h);
    if (dl == NULL && PyErr_Occurred())
        return NULL;
#define RESOLVE(name)                                                                                        \
    p_##name = (__typeof__(p_##name))dlsym(dl, #name);                                                       \
    if (p_##name == NULL) {                                                                                  \
        PyErr_Format(PyExc_ImportError, "gregor._native: the loaded libgregor lacks %s (an older build?)", #name); \
        return NULL;                                                                                         \
    }
    GREGOR_FUNCS(RESOLVE)
#undef RESOLVE
    for (i = 0; i < N_SLOTS; i++) {
        PyObject *d = PyDict_GetItemString(((PyTypeObject *)msg)->tp_dict, SLOT_NAMES[i]);
        if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type) {
            PyErr_Format(PyExc_TypeError, "gregor._native: Message has no slot %s", SLOT_NAMES[i]);
            return NULL;
        }
        slot_off[i] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    for (i = 0; message_accessors[i].ml_name != NULL; i++) {
        PyObject *d = PyDescr_NewMethod((PyTypeObject *)msg, &message_accessors[i]);
        int rc;
        if (d == NULL)
            return NULL;
        rc = PyObject_SetAttrString(msg, message_accessors[i].ml_name, d);
        Py_DECREF(d);
        if (rc < 0)
            return NULL;
    }
    Py_INCREF(msg);
    Py_XSETREF(MessageType, (PyTypeObject *)msg);
    Py_INCREF(ke);
    Py_XSETREF(KafkaErrorType, ke);
    Py_INCREF(rf);
    Py_XSETREF(raise_for_fn, rf);
    Py_INCREF(tb);
    Py_XSETREF(to_bytes_fn, tb);
    Py_INCREF(de);
    Py_XSETREF(dr_error_fn, de);
    lib_ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", mod_setup, METH_VARARGS, "setup(dl_handle, Message, KafkaError, raise_for, to_bytes, dr_error)"},
    {NULL}};

static struct PyModuleDef native_module = {PyModuleDef_HEAD_INIT, "gregor._native",
                                           "gregor's compiled hot paths over libgregor's C ABI.", -1,
                                           module_methods};

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m;
    if (PyType_Ready(&ProducerBaseType) < 0 || PyType_Ready(&ConsumerBaseType) < 0)
        return NULL;
    m = PyModule_Create(&native_module);
    if (m == NULL)
        return NULL;
#define INTERN(var, s) \
    if ((var = PyUnicode_InternFromString(s)) == NULL) \
        return NULL;
    INTERN(s_topic, "topic");
    INTERN(s_value, "value");
    INTERN(s_key, "key");
    INTERN(s_partition, "partition");
    INTERN(s_on_delivery, "on_delivery");
    INTERN(s_timestamp, "timestamp");
    INTERN(s_headers, "headers");
    INTERN(s_callback, "callback");
    INTERN(s_timeout, "timeout");
    INTERN(s_num_messages, "num_messages");
#undef INTERN
    c_minus1 = PyLong_FromLong(-1);
    c_offset_invalid = PyLong_FromLong(OFFSET_INVALID);
    c_latency_none = PyFloat_FromDouble(-1.0);
    c_ts_none = Py_BuildValue("(ii)", 0, 0);
    if (!c_minus1 || !c_offset_invalid || !c_latency_none || !c_ts_none)
        return NULL;
    Py_INCREF(&ProducerBaseType);
    if (PyModule_AddObject(m, "ProducerBase", (PyObject *)&ProducerBaseType) < 0)
        return NULL;
    Py_INCREF(&ConsumerBaseType);
    if (PyModule_AddObject(m, "ConsumerBase", (PyObject *)&ConsumerBaseType) < 0)
        return NULL;
    if (PyModule_AddIntConstant(m, "SLICE_MS", SLICE_MS) < 0)
        return NULL;
    return m;
}
