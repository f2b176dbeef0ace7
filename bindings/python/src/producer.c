/* gregor._native: ProducerBase, the compiled part of gregor.Producer
 * (produce, poll, flush, len, delivery-report dispatch). */
#include <string.h>

#include "native.h"

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
    char yield_pending;   /* _yield_pending: yield_() was called; the waiting poll/flush returns */
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
        /* C reads the name up to its first NUL: "h\0x" would become "h" */
        if (strlen(PyBytes_AS_STRING(nb)) != (size_t)PyBytes_GET_SIZE(nb)) {
            PyErr_SetString(PyExc_ValueError, "embedded null character in header name");
            Py_DECREF(nb);
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
    /* as confluent-kafka's produce: refused here, not at the poll that
     * would call it */
    if (cb != NULL && !PyCallable_Check(cb)) {
        PyErr_SetString(PyExc_TypeError, "on_delivery expects a callable");
        return NULL;
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
        /* int32_t in C: truncating 2**32 would produce to partition 0 */
        if (v < INT32_MIN || v > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "partition is out of range of int32_t");
            goto done;
        }
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
    {
        Py_ssize_t tn;
        if ((tp = PyUnicode_AsUTF8AndSize(topic, &tn)) == NULL)
            goto done;
        /* C reads the topic up to its first NUL: refuse, as CPython does */
        if (strlen(tp) != (size_t)tn) {
            PyErr_SetString(PyExc_ValueError, "embedded null character in topic");
            goto done;
        }
    }
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
        int wait = slice_ms(tms > 0, deadline);
        Py_BEGIN_ALLOW_THREADS
        n = p_gregor_producer_poll(p, wait);
        Py_END_ALLOW_THREADS
        dispatch(self);
        if (raise_stored(&self->cb_error) < 0)
            return NULL;
        if (self->yield_pending) { /* gregor_producer_yield woke this wait: return now */
            self->yield_pending = 0;
            return PyLong_FromLong(n);
        }
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
        int wait = slice_ms(tms >= 0, deadline), rc;
        Py_BEGIN_ALLOW_THREADS
        rc = p_gregor_producer_flush(p, wait);
        Py_END_ALLOW_THREADS
        dispatch(self);
        if (raise_stored(&self->cb_error) < 0)
            return NULL;
        if (self->yield_pending) {
            self->yield_pending = 0;
            break;
        }
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
    {"_yield_pending", T_BOOL, offsetof(ProducerObject, yield_pending), 0, NULL},
    {NULL}};

static PyGetSetDef Producer_getset[] = {{"_hptr", (getter)Producer_hptr, NULL, NULL, NULL}, {NULL}};

static PySequenceMethods Producer_as_sequence = {.sq_length = (lenfunc)Producer_len};

PyTypeObject ProducerBaseType = {
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

