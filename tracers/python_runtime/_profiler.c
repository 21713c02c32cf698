/* The hot path of the Python tracer: a profile callback in C (CPython 3.11 C API).
 *
 * Per call event it looks the code object up in a pointer-keyed table (code -> kind, small
 * int id; a reference to each code object is kept so pointers are never reused), asks the
 * Python resolver only the first time a code object is seen, walks f_back in C to the
 * nearest program frame, and counts the edge in a hash table keyed by
 * (caller id, callee id, caller instruction offset). A new key calls Python once (to log
 * the first sighting); everything else stays in C. Return and C events return at once.
 *
 * Kinds (same numbers as recorder.py): 1 library, 2 program, 3 transparent (class body or
 * comprehension: a caller, never a callee), 4 boundary (event loop / thread bootstrap: ask
 * Python who the caller is), 5 special (Thread.start, create_task: tell Python).
 * No pointer into a table is held across a call into Python: another thread may grow it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stdint.h>

enum { K_LIBRARY = 1, K_PROGRAM = 2, K_TRANSPARENT = 3, K_BOUNDARY = 4, K_SPECIAL = 5 };

typedef struct {
    PyObject *code; /* strong reference; NULL = empty slot */
    int kind;
    int id;
} CodeSlot;

typedef struct {
    int used;
    int caller;
    int callee;
    int site; /* caller's instruction offset, or -1 - line for a caller found at a boundary */
    int line;
    long long count;
} EdgeSlot;

static CodeSlot *codes = NULL;
static Py_ssize_t codes_cap = 0, codes_len = 0;
static EdgeSlot *edges = NULL;
static Py_ssize_t edges_cap = 0, edges_len = 0;

static PyObject *resolver = NULL;    /* resolve(code, frame) -> (kind, id) */
static PyObject *on_edge = NULL;     /* new_edge(caller, callee, line) */
static PyObject *on_boundary = NULL; /* boundary(frame) -> (id, line) | None */
static PyObject *on_special = NULL;  /* special(frame) */

static inline size_t hash_ptr(const void *p) {
    uintptr_t x = (uintptr_t)p >> 4;
    return (size_t)(x * 0x9E3779B97F4A7C15ULL);
}

static inline size_t hash_edge(int a, int b, int c) {
    uint64_t h = (uint64_t)(uint32_t)a * 0x9E3779B97F4A7C15ULL;
    h ^= (uint64_t)(uint32_t)b * 0xC2B2AE3D27D4EB4FULL;
    h ^= (uint64_t)(uint32_t)c * 0x165667B19E3779F9ULL;
    return (size_t)(h ^ (h >> 29));
}

static int codes_grow(void) {
    Py_ssize_t cap = codes_cap ? codes_cap * 2 : 1024;
    CodeSlot *fresh = PyMem_Calloc((size_t)cap, sizeof(CodeSlot));
    if (fresh == NULL) return -1;
    for (Py_ssize_t i = 0; i < codes_cap; i++) {
        if (codes[i].code == NULL) continue;
        size_t j = hash_ptr(codes[i].code) & (size_t)(cap - 1);
        while (fresh[j].code != NULL) j = (j + 1) & (size_t)(cap - 1);
        fresh[j] = codes[i];
    }
    PyMem_Free(codes);
    codes = fresh;
    codes_cap = cap;
    return 0;
}

static CodeSlot *codes_find(PyObject *code) {
    if (codes_cap == 0) return NULL;
    size_t mask = (size_t)(codes_cap - 1), j = hash_ptr(code) & mask;
    while (codes[j].code != NULL) {
        if (codes[j].code == code) return &codes[j];
        j = (j + 1) & mask;
    }
    return NULL;
}

static int codes_add(PyObject *code, int kind, int id) {
    if ((codes_len + 1) * 2 > codes_cap && codes_grow() < 0) return -1;
    size_t mask = (size_t)(codes_cap - 1), j = hash_ptr(code) & mask;
    while (codes[j].code != NULL) {
        if (codes[j].code == code) return 0;
        j = (j + 1) & mask;
    }
    Py_INCREF(code);
    codes[j].code = code;
    codes[j].kind = kind;
    codes[j].id = id;
    codes_len++;
    return 0;
}

/* The kind of `code` (and its id in *id), asking the resolver the first time. */
static int classify(PyObject *code, PyFrameObject *frame, int *id) {
    CodeSlot *slot = codes_find(code);
    if (slot != NULL) {
        *id = slot->id;
        return slot->kind;
    }
    int kind = K_LIBRARY;
    *id = -1;
    if (resolver != NULL) {
        PyObject *result = PyObject_CallFunctionObjArgs(resolver, code, (PyObject *)frame, NULL);
        if (result == NULL || !PyArg_ParseTuple(result, "ii", &kind, id)) {
            PyErr_WriteUnraisable(resolver);
            kind = K_LIBRARY;
            *id = -1;
        }
        Py_XDECREF(result);
    }
    if (codes_add(code, kind, *id) < 0) PyErr_Clear();
    return kind;
}

static int edges_grow(void) {
    Py_ssize_t cap = edges_cap ? edges_cap * 2 : 1024;
    EdgeSlot *fresh = PyMem_Calloc((size_t)cap, sizeof(EdgeSlot));
    if (fresh == NULL) return -1;
    for (Py_ssize_t i = 0; i < edges_cap; i++) {
        if (!edges[i].used) continue;
        size_t j = hash_edge(edges[i].caller, edges[i].callee, edges[i].site) & (size_t)(cap - 1);
        while (fresh[j].used) j = (j + 1) & (size_t)(cap - 1);
        fresh[j] = edges[i];
    }
    PyMem_Free(edges);
    edges = fresh;
    edges_cap = cap;
    return 0;
}

/* Count one call; returns 1 when the key was new (the caller must log it), -1 on error. */
static int edges_count(int caller, int callee, int site, PyFrameObject *caller_frame, int *line) {
    if ((edges_len + 1) * 2 > edges_cap && edges_grow() < 0) return -1;
    size_t mask = (size_t)(edges_cap - 1), j = hash_edge(caller, callee, site) & mask;
    while (edges[j].used) {
        EdgeSlot *e = &edges[j];
        if (e->caller == caller && e->callee == callee && e->site == site) {
            e->count++;
            return 0;
        }
        j = (j + 1) & mask;
    }
    *line = site >= 0 ? PyFrame_GetLineNumber(caller_frame) : -1 - site;
    edges[j].used = 1;
    edges[j].caller = caller;
    edges[j].callee = callee;
    edges[j].site = site;
    edges[j].line = *line;
    edges[j].count = 1;
    edges_len++;
    return 1;
}

/* The nearest program (or transparent) frame below `frame`: 1 and its id/site with a new
 * reference to that frame in *found (NULL when found at a boundary), or 0 when none. */
static int nearest(PyFrameObject *frame, int *caller, int *site, PyFrameObject **found) {
    PyFrameObject *f = PyFrame_GetBack(frame);
    *found = NULL;
    while (f != NULL) {
        PyCodeObject *code = PyFrame_GetCode(f);
        int id, kind = classify((PyObject *)code, f, &id);
        Py_DECREF(code);
        if (kind == K_PROGRAM || kind == K_TRANSPARENT) {
            *caller = id;
            *site = PyFrame_GetLasti(f);
            if (*site < 0) *site = 0;
            *found = f;
            return 1;
        }
        if (kind == K_BOUNDARY && on_boundary != NULL) {
            PyObject *result = PyObject_CallOneArg(on_boundary, (PyObject *)f);
            int line = 0;
            if (result == NULL) {
                PyErr_WriteUnraisable(on_boundary);
            } else if (result != Py_None && PyArg_ParseTuple(result, "ii", caller, &line)) {
                Py_DECREF(result);
                Py_DECREF(f);
                *site = -1 - line;
                return 1;
            } else {
                PyErr_Clear();
            }
            Py_XDECREF(result);
        }
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    return 0;
}

static void record_call(PyFrameObject *frame, int callee) {
    int caller, site, line = 0;
    PyFrameObject *found;
    if (!nearest(frame, &caller, &site, &found)) return;
    if (caller != callee) {
        int fresh = edges_count(caller, callee, site, found, &line);
        if (fresh < 0) {
            PyErr_Clear();
        } else if (fresh && on_edge != NULL) {
            PyObject *result = PyObject_CallFunction(on_edge, "iii", caller, callee, line);
            if (result == NULL) PyErr_WriteUnraisable(on_edge);
            Py_XDECREF(result);
        }
    }
    Py_XDECREF(found);
}

static void call_event(PyFrameObject *frame) {
    PyCodeObject *code = PyFrame_GetCode(frame);
    int id, kind = classify((PyObject *)code, frame, &id);
    Py_DECREF(code);
    if (kind == K_PROGRAM) {
        record_call(frame, id);
    } else if (kind == K_SPECIAL && on_special != NULL) {
        PyObject *result = PyObject_CallOneArg(on_special, (PyObject *)frame);
        if (result == NULL) PyErr_WriteUnraisable(on_special);
        Py_XDECREF(result);
    }
}

static int profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg) {
    if (what == PyTrace_CALL) call_event(frame);
    return 0;
}

static PyObject *py_configure(PyObject *self, PyObject *args) {
    PyObject *r, *e, *b, *s;
    if (!PyArg_ParseTuple(args, "OOOO", &r, &e, &b, &s)) return NULL;
    Py_XSETREF(resolver, Py_NewRef(r));
    Py_XSETREF(on_edge, Py_NewRef(e));
    Py_XSETREF(on_boundary, Py_NewRef(b));
    Py_XSETREF(on_special, Py_NewRef(s));
    Py_RETURN_NONE;
}

static PyObject *py_install(PyObject *self, PyObject *unused) {
    PyEval_SetProfile(profile, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_uninstall(PyObject *self, PyObject *unused) {
    PyEval_SetProfile(NULL, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_call_event(PyObject *self, PyObject *frame) {
    if (!PyFrame_Check(frame)) {
        PyErr_SetString(PyExc_TypeError, "call_event() needs a frame");
        return NULL;
    }
    call_event((PyFrameObject *)frame);
    Py_RETURN_NONE;
}

static PyObject *py_counts(PyObject *self, PyObject *unused) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < edges_cap; i++) {
        EdgeSlot *e = &edges[i];
        if (!e->used) continue;
        PyObject *item = Py_BuildValue("(iiiL)", e->caller, e->callee, e->line, e->count);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"configure", py_configure, METH_VARARGS, "configure(resolve, new_edge, boundary, special)"},
    {"install", py_install, METH_NOARGS, "Profile the current thread."},
    {"uninstall", py_uninstall, METH_NOARGS, "Stop profiling the current thread."},
    {"call_event", py_call_event, METH_O, "Handle a call event for this frame (first event of a thread)."},
    {"counts", py_counts, METH_NOARGS, "[(caller, callee, line, count)] for every call site seen."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_profiler", "C profile callback of the TraceEval Python tracer.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__profiler(void) { return PyModule_Create(&module); }
