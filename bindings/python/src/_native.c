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
 *
 * Files: this one (library, shared helpers, Message accessors, module),
 * producer.c (ProducerBase), consumer.c (ConsumerBase), native.h.
 */
#include <math.h>

#include "native.h"

#define DEFINE(name) __typeof__(name) *p_##name;
GREGOR_FUNCS(DEFINE)
#undef DEFINE

static int lib_ready = 0;

/* Python objects setup() is given */
PyTypeObject *MessageType; /* gregor.Message (a class with __slots__) */
PyObject *KafkaErrorType;  /* gregor.KafkaError */
PyObject *raise_for_fn;    /* gregor.error.raise_for(code, errbuf, reason) */
PyObject *to_bytes_fn;     /* gregor._lib.to_bytes(v) */
PyObject *dr_error_fn;     /* gregor._dr_error(code, detail): a report's KafkaError */

/* Message's slots, in this order; their offsets come from the class's
 * member descriptors, so a Message is built with one allocation and eleven
 * stores (no Python-level __init__). */
static const char *const SLOT_NAMES[] = {"_topic", "_partition", "_offset", "_key", "_value", "_headers",
                                         "_timestamp", "_error", "_leader_epoch", "_latency", "_delivery_count"};
Py_ssize_t slot_off[N_SLOTS];

/* constants */
PyObject *c_minus1;         /* -1 */
PyObject *c_offset_invalid; /* OFFSET_INVALID */
PyObject *c_latency_none;   /* -1.0 */
PyObject *c_ts_none;        /* (0, 0) */
PyObject *s_topic, *s_value, *s_key, *s_partition, *s_on_delivery, *s_timestamp, *s_headers, *s_callback,
    *s_timeout, *s_num_messages;

int need_lib(void)
{
    if (!lib_ready) {
        PyErr_SetString(PyExc_RuntimeError, "gregor._native: setup() has not been called");
        return -1;
    }
    return 0;
}

/* Builds a Message from eleven values (references stolen; NULL entries
 * mean an error happened while building them). */
PyObject *new_message(PyObject *vals[N_SLOTS])
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

PyObject *ts_tuple(int type, int64_t ts)
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

PyObject *kafka_error(int code, const char *reason)
{
    if (reason != NULL && *reason)
        return PyObject_CallFunction(KafkaErrorType, "is", code, reason);
    return PyObject_CallFunction(KafkaErrorType, "iO", code, Py_None);
}

/* Raises KafkaException for `code` through gregor.error.raise_for. */
PyObject *raise_code(int code, const char *errstr, PyObject *reason)
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

double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The next wait of a sliced wait (poll, consume, flush): SLICE_MS, or, when
 * `bounded`, what is left before `deadline` (monotonic_s) if that is less,
 * never below 0. */
int slice_ms(int bounded, double deadline)
{
    double left;
    if (!bounded)
        return SLICE_MS;
    left = (deadline - monotonic_s()) * 1000.0;
    if (left <= 0)
        return 0;
    return left < SLICE_MS ? (int)left : SLICE_MS;
}

/* A timeout argument in seconds (None or negative: infinite) as ms
 * (-1 infinite), as gregor._lib.ms. */
int timeout_ms_arg(PyObject *o, long long *out)
{
    double t;
    if (o == NULL || o == Py_None) {
        *out = -1;
        return 0;
    }
    t = PyFloat_AsDouble(o);
    if (t == -1.0 && PyErr_Occurred())
        return -1;
    /* NaN compares false with everything: it would neither be "negative:
     * infinite" nor a bounded wait, and (long long)NaN is undefined */
    if (isnan(t)) {
        PyErr_SetString(PyExc_ValueError, "timeout must be a number of seconds, not NaN");
        return -1;
    }
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
int raise_stored(PyObject **slot)
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

void keep_error(PyObject **slot)
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

/* Parses an optional single `timeout` argument (positional or keyword). */
int parse_timeout(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
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
