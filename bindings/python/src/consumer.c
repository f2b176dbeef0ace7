/* gregor._native: ConsumerBase, the compiled part of gregor.Consumer
 * (poll, consume, Message construction). */
#include "native.h"

/* ---------------------------------------------------------------- consumer */

typedef struct {
    PyObject_HEAD
    gregor_consumer *ptr;
    PyObject *cb_error; /* _cb_error */
    PyObject *keep;     /* _keep */
    char closed;        /* _closed */
    char yield_pending; /* _yield_pending: yield_() was called; the waiting poll returns None */
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

/* True (once) after yield_(): gregor_consumer_yield woke the wait. */
static int took_yield(ConsumerObject *self)
{
    if (!self->yield_pending)
        return 0;
    self->yield_pending = 0;
    return 1;
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
    if (took_yield(self) || (tms > 0 && tms <= SLICE_MS))
        Py_RETURN_NONE;
    if (PyErr_CheckSignals() < 0)
        return NULL;
    if ((p = consumer_ptr(self)) == NULL)
        return NULL;
    if (tms > 0)
        deadline = monotonic_s() + (tms - SLICE_MS) / 1000.0;
    for (;;) {
        int wait = slice_ms(tms > 0, deadline);
        m = poll_once(self, p, wait);
        if (m != Py_None)
            return m;
        Py_DECREF(m);
        if (took_yield(self) || (tms > 0 && monotonic_s() >= deadline))
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
        } else {
            Py_DECREF(m);
            if (took_yield(self))
                break;
        }
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
                                         {"_yield_pending", T_BOOL, offsetof(ConsumerObject, yield_pending), 0, NULL},
                                         {NULL}};

static PyGetSetDef Consumer_getset[] = {{"_hptr", (getter)Consumer_hptr, NULL, NULL, NULL}, {NULL}};

PyTypeObject ConsumerBaseType = {
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

