/* judgeapp.formats._runread: a TREC run file read for `evaluate` in one pass over its
 * bytes, in C.
 *
 * The numpy reader (judgeapp/formats/bulk.py) makes a dozen passes over a block's bytes
 * (finding white space, gathering token windows, parsing digits, hashing docnos, looking
 * them up among the judged ones); here one loop over the bytes tokenises each line, parses
 * its score, hashes its docno and looks it up, and the rows are then put in trec_eval's
 * order. What comes back is only what `evaluate` needs of a run: its tag, its qids in byte
 * order, where each topic's rows start, and each row's judged document id (or the number
 * of judged documents, for an unjudged one), in trec_eval order.
 *
 * It takes what the numpy reader takes, no more: the blocks come from bulk._blocks (whole
 * lines of strict UTF-8, no NUL, line ends made \n), and anything the numpy reader would
 * hand on to the line reader, or that this one is unsure of, makes the reader irregular
 * (`feed` returns -1, `finish` None): the caller then reads the file the numpy way, which
 * gives the same rows or the error message (file, line, problem). Being unsure costs only
 * time: a line a byte short of the longest line taken, a token longer than MAX_TOKEN, a
 * score in a form not parsed here.
 *
 * Types:
 *   DocnoTable(mat, width, lengths)  a qrels file's docnos (rows of a zero-padded byte
 *                              matrix, lengths int64), numbered 0..m-1 as first met:
 *       .ids()                 each row's number (bytearray of int64)
 *       .strings()             (the m docnos' bytes joined, their lengths as int64)
 *   RunReader(table, max_line, max_token)
 *       .feed(buf, start, size) -> line ends in buf[start:start+size], or -1 (irregular)
 *       .finish(float32)        -> (tag, qids, bounds, ids) or None (irregular); bounds
 *                                  and ids are bytearrays of native int64
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_runread_parts.h"

/* ---- DocnoTable: the judged docnos ---------------------------------------------------- */

/* A table of m docnos is large (5,000 judged a topic: 250,000 docnos, megabytes), so that
 * nearly every look-up misses the caches: its cells are 8 bytes (32 bits of the hash, the
 * docno's number), and look-ups are made many at a time, each cell (then each docno's
 * bytes) fetched ahead of its turn (PREFETCH rows ahead), so the misses overlap. */
typedef struct {
    uint32_t tag; /* the hash's low 32 bits */
    int32_t id;   /* -1: free */
} Cell;

#define PREFETCH 12
#if defined(__GNUC__)
#define prefetch(p) __builtin_prefetch(p)
#else
#define prefetch(p) ((void)(p))
#endif

typedef struct {
    PyObject_HEAD
    Strings docnos;
    Cell *cells;
    PyObject *ids; /* bytearray: each row's number, as made */
    int shift;     /* a hash's cell: its top bits (64 - shift of them) */
    size_t mask;
} DocnoTable;

static inline size_t cell_of(const DocnoTable *t, uint64_t h) { return (size_t)(h >> t->shift); }

/* the number of the docno (p, n) whose hash is h, or -1 */
static inline Py_ssize_t table_find(const DocnoTable *t, uint64_t h, const unsigned char *p,
                                    Py_ssize_t n) {
    uint32_t tag = (uint32_t)h;
    for (size_t at = cell_of(t, h);; at = (at + 1) & t->mask) {
        Cell c = t->cells[at];
        if (c.id < 0)
            return -1;
        if (c.tag == tag && strings_equal(&t->docnos, c.id, p, n))
            return c.id;
    }
}

static void table_dealloc(DocnoTable *self) {
    strings_free(&self->docnos);
    PyMem_Free(self->cells);
    Py_XDECREF(self->ids);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* number the m docnos rows[i][:lens[i]] (each with slack after it; hashes given) as
 * first met, into an empty table: ids[i] the number of row i; 0, or -1 with an error set */
static int table_fill(DocnoTable *self, Py_ssize_t m, const unsigned char *const *rows,
                      const Py_ssize_t *lens, const uint64_t *hashes, int64_t *ids) {
    if (self->cells != NULL || m >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a DocnoTable is made once, of fewer than 2**31");
        return -1;
    }
    size_t size = 64;
    int bits = 6;
    while (size < 2 * (size_t)m + 2) {
        size *= 2;
        bits++;
    }
    self->cells = PyMem_Malloc(size * sizeof(Cell));
    if (self->cells == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t k = 0; k < size; k++)
        self->cells[k].id = -1;
    self->mask = size - 1;
    self->shift = 64 - bits;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (i + PREFETCH < m)
            prefetch(&self->cells[cell_of(self, hashes[i + PREFETCH])]);
        Py_ssize_t id = table_find(self, hashes[i], rows[i], lens[i]);
        if (id < 0) {
            if ((id = strings_add(&self->docnos, rows[i], lens[i])) < 0)
                return -1;
            size_t k = cell_of(self, hashes[i]);
            while (self->cells[k].id >= 0)
                k = (k + 1) & self->mask;
            self->cells[k].tag = (uint32_t)hashes[i];
            self->cells[k].id = (int32_t)id;
        }
        ids[i] = id;
    }
    return 0;
}

/* DocnoTable(mat, width, lengths): the docnos of a qrels file, row i being the first
 * lengths[i] bytes of mat[i * width : (i + 1) * width]; repeated docnos are numbered once,
 * in the order first met (ids() says each row's number) */
static int table_init(DocnoTable *self, PyObject *args, PyObject *kwds) {
    Py_buffer mat, lengths;
    Py_ssize_t width;
    static char *names[] = {"mat", "width", "lengths", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*ny*", names, &mat, &width, &lengths))
        return -1;
    int status = -1;
    Py_ssize_t m = lengths.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *len = lengths.buf;
    /* the rows with slack after them (read a word at a time) */
    unsigned char *p = PyMem_Calloc((size_t)mat.len + SLACK, 1);
    uint64_t *hashes = PyMem_Malloc((size_t)(m + 1) * sizeof(uint64_t));
    const unsigned char **rows = PyMem_Malloc((size_t)(m + 1) * sizeof(unsigned char *));
    Py_ssize_t *lens = PyMem_Malloc((size_t)(m + 1) * sizeof(Py_ssize_t));
    int64_t *ids = NULL;
    if (hashes == NULL || p == NULL || rows == NULL || lens == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (width < 0 || m * width > mat.len) {
        PyErr_SetString(PyExc_ValueError, "rows beyond the matrix");
        goto done;
    }
    memcpy(p, mat.buf, (size_t)mat.len);
    for (Py_ssize_t i = 0; i < m; i++) {
        if (len[i] < 0 || len[i] > width) {
            PyErr_SetString(PyExc_ValueError, "a length beyond its row");
            goto done;
        }
        rows[i] = p + i * width;
        lens[i] = (Py_ssize_t)len[i];
        hashes[i] = hash_bytes(rows[i], lens[i]);
    }
    Py_CLEAR(self->ids);
    if ((self->ids = new_array(m, &ids)) == NULL)
        goto done;
    status = table_fill(self, m, rows, lens, hashes, ids);
done:
    PyMem_Free(hashes);
    PyMem_Free(p);
    PyMem_Free(rows);
    PyMem_Free(lens);
    PyBuffer_Release(&mat);
    PyBuffer_Release(&lengths);
    return status;
}

static PyObject *table_ids(DocnoTable *self, PyObject *Py_UNUSED(ignored)) {
    if (self->ids == NULL)
        Py_RETURN_NONE;
    Py_INCREF(self->ids);
    return self->ids;
}

/* (the distinct docnos' bytes one after another, their lengths as int64) */
static PyObject *table_strings(DocnoTable *self, PyObject *Py_UNUSED(ignored)) {
    const Strings *d = &self->docnos;
    int64_t *len;
    PyObject *lengths = new_array(d->n, &len);
    if (lengths == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < d->n; i++)
        len[i] = d->len[i];
    PyObject *data = PyBytes_FromStringAndSize((const char *)d->bytes, (Py_ssize_t)d->used);
    PyObject *out = data == NULL ? NULL : PyTuple_Pack(2, data, lengths);
    Py_XDECREF(data);
    Py_DECREF(lengths);
    return out;
}

static PyMethodDef table_methods[] = {
    {"ids", (PyCFunction)table_ids, METH_NOARGS,
     "ids(): each row's docno number (a bytearray of int64)"},
    {"strings", (PyCFunction)table_strings, METH_NOARGS,
     "strings(): (the distinct docnos' bytes joined, their lengths as int64 bytes)"},
    {NULL, NULL, 0, NULL},
};

static Py_ssize_t table_len(DocnoTable *self) { return self->docnos.n; }

static PySequenceMethods table_as_sequence = {.sq_length = (lenfunc)table_len};

static PyTypeObject DocnoTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "judgeapp.formats._runread.DocnoTable",
    .tp_basicsize = sizeof(DocnoTable),
    .tp_dealloc = (destructor)table_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "DocnoTable(mat, width, lengths): a qrels file's docnos, numbered as first met",
    .tp_init = (initproc)table_init,
    .tp_new = PyType_GenericNew,
    .tp_as_sequence = &table_as_sequence,
    .tp_methods = table_methods,
};

/* ---- RunReader ---------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    DocnoTable *table;
    Py_ssize_t max_line, max_token;
    int irregular;
    PyObject *tag; /* str, from the first data line */
    Strings qids;  /* distinct qids, as first met */
    Slots qid_slots;
    Py_ssize_t topic; /* the previous row's qid number, -1 before the first */
    Strings docnos;   /* each row's docno */
    uint64_t *hash;   /* each row's docno hash */
    int32_t *row_topic;
    double *score;      /* a run's score, a qrels file's grade */
    int64_t grade_limit; /* -1: a run; else a qrels file, grades at most this (abs) */
    Py_ssize_t rows, cap;
} RunReader;

static void reader_dealloc(RunReader *self) {
    Py_XDECREF(self->table);
    Py_XDECREF(self->tag);
    strings_free(&self->qids);
    slots_free(&self->qid_slots);
    strings_free(&self->docnos);
    PyMem_Free(self->hash);
    PyMem_Free(self->row_topic);
    PyMem_Free(self->score);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* RunReader(table, max_line, max_token): a run, its docnos looked up in table;
 * RunReader(None, max_line, max_token, grade_limit): a qrels file */
static int reader_init(RunReader *self, PyObject *args, PyObject *kwds) {
    PyObject *table;
    static char *names[] = {"table", "max_line", "max_token", "grade_limit", NULL};
    self->grade_limit = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Onn|L", names, &table, &self->max_line,
                                     &self->max_token, &self->grade_limit))
        return -1;
    if (self->qid_slots.slots != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a RunReader reads one file");
        return -1;
    }
    if (self->grade_limit < 0) {
        if (!PyObject_TypeCheck(table, &DocnoTableType)) {
            PyErr_SetString(PyExc_TypeError, "a run is read with a DocnoTable");
            return -1;
        }
        Py_INCREF(table);
        self->table = (DocnoTable *)table;
    }
    self->topic = -1;
    return slots_init(&self->qid_slots, 64);
}

static int reader_grow(RunReader *self) {
    Py_ssize_t cap = self->cap ? 2 * self->cap : 4096;
    if (grow((void **)&self->hash, cap, sizeof(uint64_t)) < 0 ||
        grow((void **)&self->row_topic, cap, sizeof(int32_t)) < 0 ||
        grow((void **)&self->score, cap, sizeof(double)) < 0)
        return -1;
    self->cap = cap;
    return 0;
}

/* the number of the qid (p, n), new ones numbered on; -1 with an error set */
static Py_ssize_t reader_topic(RunReader *self, const unsigned char *p, Py_ssize_t n) {
    if (self->topic >= 0 && strings_equal(&self->qids, self->topic, p, n))
        return self->topic; /* the usual line: the topic of the line before */
    uint64_t h = hash_bytes(p, n);
    Slot *slot = slots_find(&self->qid_slots, &self->qids, h, p, n);
    if (slot->value < 0) {
        if (self->qids.n >= INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "too many topics");
            return -1;
        }
        Py_ssize_t k = strings_add(&self->qids, p, n);
        if (k < 0)
            return -1;
        slot->hash = h;
        slot->value = k;
        if (2 * ++self->qid_slots.count > (Py_ssize_t)self->qid_slots.mask &&
            slots_grow(&self->qid_slots) < 0)
            return -1;
        return self->topic = k;
    }
    return self->topic = slot->value;
}

/* one data line's columns: qid, docno, score, tag; 0, 1 (irregular) or -1 (error) */
static int reader_row(RunReader *self, const unsigned char *const *start,
                      const unsigned char *const *end) {
    if (self->rows >= INT32_MAX - 1)
        return 1; /* rows numbered in 32 bits: a larger file is left to numpy */
    if (self->rows == self->cap && reader_grow(self) < 0)
        return -1;
    Py_ssize_t topic = reader_topic(self, start[0], end[0] - start[0]);
    if (topic < 0)
        return -1;
    if (self->tag == NULL) {
        self->tag = PyUnicode_DecodeUTF8((const char *)start[5], end[5] - start[5], "strict");
        if (self->tag == NULL) {
            PyErr_Clear();
            return 1;
        }
    }
    int ok;
    double score = parse_score(start[4], end[4] - start[4], &ok);
    if (!ok)
        return 1;
    const unsigned char *docno = start[2];
    Py_ssize_t n = end[2] - docno;
    if (strings_add(&self->docnos, docno, n) < 0)
        return -1;
    Py_ssize_t r = self->rows++;
    self->hash[r] = hash_bytes(docno, n);
    self->row_topic[r] = (int32_t)topic;
    self->score[r] = score;
    return 0;
}

/* one data line of a qrels file: qid, docno, grade ([+-]digits, as the numpy reader) */
static int qrels_row(RunReader *self, const unsigned char *const *start,
                     const unsigned char *const *end) {
    if (self->rows >= INT32_MAX - 1)
        return 1;
    if (self->rows == self->cap && reader_grow(self) < 0)
        return -1;
    Py_ssize_t topic = reader_topic(self, start[0], end[0] - start[0]);
    if (topic < 0)
        return -1;
    const unsigned char *p = start[3], *stop = end[3];
    int negative = 0;
    if (*p == '-' || *p == '+')
        negative = *p++ == '-';
    if (p == stop || stop - p > 18)
        return 1;
    int64_t grade = 0;
    for (; p < stop; p++) {
        unsigned d = (unsigned)*p - '0';
        if (d > 9)
            return 1;
        grade = grade * 10 + d;
    }
    if (grade > self->grade_limit)
        return 1; /* the line reader names the grade out of range */
    const unsigned char *docno = start[2];
    Py_ssize_t n = end[2] - docno;
    if (strings_add(&self->docnos, docno, n) < 0)
        return -1;
    Py_ssize_t r = self->rows++;
    self->hash[r] = hash_bytes(docno, n);
    self->row_topic[r] = (int32_t)topic;
    self->score[r] = (double)(negative ? -grade : grade);
    return 0;
}

static PyObject *reader_feed(RunReader *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, size;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &size))
        return NULL;
    Py_ssize_t lines = 0;
    int status = 0; /* 1: irregular, -1: error */
    if (start < 0 || size < 0 || start + size + SLACK > view.len) {
        PyErr_SetString(PyExc_ValueError, "a block beyond the buffer");
        status = -1;
        goto done;
    }
    const unsigned char *p = (const unsigned char *)view.buf + start;
    const unsigned char *end = p + size;
    if (self->irregular || (size && end[-1] != '\n')) {
        status = 1;
        goto done;
    }
    while (p < end && status == 0) {
        const unsigned char *line = p, *ts[6], *te[6];
        int tokens = 0;
        unsigned char c;
        for (;;) {
            while ((c = *p) == ' ' || c == '\t' || c == '\v' || c == '\f')
                p++;
            if (c == '\n')
                break;
            if (c < 32) { /* a control character: the line reader's business */
                status = 1;
                break;
            }
            const unsigned char *s = p;
            if (tokens == 0 && c == '#') { /* a comment: checked as the numpy reader does */
                while ((c = *p) != '\n') {
                    if (c < 32 && c != '\t' && c != '\v' && c != '\f') {
                        status = 1;
                        break;
                    }
                    p++;
                }
                break;
            }
            p = token_end(p);
            if (tokens < 6) {
                if (p - s > self->max_token) {
                    status = 1;
                    break;
                }
                ts[tokens] = s;
                te[tokens] = p;
            }
            tokens++;
        }
        if (status)
            break;
        /* a line as long as the longest the numpy reader takes, or longer: left to it */
        if (p - line >= self->max_line) {
            status = 1;
            break;
        }
        p++;
        lines++;
        if (tokens == 0) /* a blank line, or a comment */
            continue;
        if (self->grade_limit >= 0) { /* qrels: four columns, no more */
            status = tokens == 4 ? qrels_row(self, ts, te) : 1;
            continue;
        }
        if (tokens < 6) {
            status = 1;
            break;
        }
        status = reader_row(self, ts, te);
    }
done:
    PyBuffer_Release(&view);
    if (status < 0)
        return NULL;
    if (status > 0) {
        self->irregular = 1;
        return PyLong_FromLong(-1);
    }
    return PyLong_FromSsize_t(lines);
}

/* does the topic of rows idx[0:n] hold one docno twice? A table of the topic's rows
 * (``seen``: room for 2n or more, a power of two, `bits` its log) small enough to stay
 * in the caches, unlike one over the whole run */
static int topic_has_duplicates(const RunReader *self, const Py_ssize_t *idx, Py_ssize_t n,
                                int32_t *seen, int bits) {
    size_t mask = ((size_t)1 << bits) - 1;
    memset(seen, 0xff, (mask + 1) * sizeof(int32_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t r = idx[i];
        uint64_t h = self->hash[r];
        for (size_t at = (size_t)(h >> (64 - bits));; at = (at + 1) & mask) {
            int32_t k = seen[at];
            if (k < 0) {
                seen[at] = (int32_t)i;
                break;
            }
            Py_ssize_t q = idx[k];
            if (self->hash[q] == h && strings_compare(&self->docnos, q, r) == 0)
                return 1;
        }
    }
    return 0;
}

/* each row's docno number in the table (the number of docnos for one not there), rows
 * taken in the order idx[0:n]; cells, then the docnos they point to, are fetched ahead */
static void look_up(const RunReader *self, const Py_ssize_t *idx, Py_ssize_t n, int64_t *out) {
    const DocnoTable *t = self->table;
    const Strings *d = &self->docnos;
    int64_t unjudged = t->docnos.n;
    for (Py_ssize_t i = 0; i < n + 2 * PREFETCH; i++) {
        if (i < n)
            prefetch(&t->cells[cell_of(t, self->hash[idx[i]])]);
        Py_ssize_t j = i - PREFETCH;
        if (j >= 0 && j < n) {
            Cell c = t->cells[cell_of(t, self->hash[idx[j]])];
            if (c.id >= 0)
                prefetch(t->docnos.bytes + t->docnos.off[c.id]);
        }
        j -= PREFETCH;
        if (j >= 0) {
            Py_ssize_t r = idx[j];
            Py_ssize_t k = table_find(t, self->hash[r], d->bytes + d->off[r], d->len[r]);
            out[j] = k < 0 ? unjudged : (int64_t)k;
        }
    }
}

/* a file's rows grouped by topic: qids in byte order (``rank[q]`` the place of qid
 * number q), topic k's rows idx[start[k]:start[k + 1]], in file order */
typedef struct {
    Py_ssize_t *rank, *start, *idx, *tmp;
} Groups;

static void groups_free(Groups *g) {
    PyMem_Free(g->rank);
    PyMem_Free(g->start);
    PyMem_Free(g->idx);
    PyMem_Free(g->tmp);
}

/* 0; 1 where a topic holds one docno twice (the line reader says where); -1, an error */
static int reader_group(const RunReader *self, Groups *g) {
    Py_ssize_t n = self->rows, t = self->qids.n;
    Py_ssize_t *next = PyMem_Malloc((size_t)(t + 1) * sizeof(Py_ssize_t));
    int32_t *seen = NULL;
    int status = -1;
    g->rank = PyMem_Malloc((size_t)(t + 1) * sizeof(Py_ssize_t));
    g->start = PyMem_Calloc((size_t)t + 1, sizeof(Py_ssize_t));
    g->idx = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    g->tmp = PyMem_Malloc((size_t)(n + t + 1) * sizeof(Py_ssize_t));
    if (!next || !g->rank || !g->start || !g->idx || !g->tmp) {
        PyErr_NoMemory();
        goto done;
    }
    Order qo = {&self->qids, NULL}; /* the distinct qids in byte order */
    for (Py_ssize_t k = 0; k < t; k++)
        next[k] = k;
    sort_rows(next, g->tmp, t, &qo, docno_compare); /* descending: reversed below */
    for (Py_ssize_t k = 0; k < t; k++)
        g->rank[next[t - 1 - k]] = k;
    for (Py_ssize_t r = 0; r < n; r++) /* a counting sort of the rows by topic */
        g->start[g->rank[self->row_topic[r]] + 1]++;
    for (Py_ssize_t k = 0; k < t; k++)
        g->start[k + 1] += g->start[k];
    memcpy(next, g->start, (size_t)(t + 1) * sizeof(Py_ssize_t));
    for (Py_ssize_t r = 0; r < n; r++)
        g->idx[next[g->rank[self->row_topic[r]]]++] = r;
    Py_ssize_t most = 0;
    for (Py_ssize_t k = 0; k < t; k++)
        if (g->start[k + 1] - g->start[k] > most)
            most = g->start[k + 1] - g->start[k];
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < 2 * most)
        bits++;
    if ((seen = PyMem_Malloc(((size_t)1 << bits) * sizeof(int32_t))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    status = 0;
    for (Py_ssize_t k = 0; k < t && status == 0; k++) {
        Py_ssize_t size = g->start[k + 1] - g->start[k];
        int b = 4;
        while (((Py_ssize_t)1 << b) < 2 * size)
            b++;
        status = topic_has_duplicates(self, g->idx + g->start[k], size, seen, b);
    }
done:
    PyMem_Free(next);
    PyMem_Free(seen);
    return status;
}

/* the qids in byte order (a list of str), or NULL with an error set */
static PyObject *qid_list(const RunReader *self, const Groups *g) {
    Py_ssize_t t = self->qids.n;
    PyObject *qids = PyList_New(t);
    for (Py_ssize_t q = 0; qids != NULL && q < t; q++) {
        PyObject *s = PyUnicode_DecodeUTF8((const char *)self->qids.bytes + self->qids.off[q],
                                           self->qids.len[q], "strict");
        if (s == NULL)
            Py_CLEAR(qids);
        else
            PyList_SET_ITEM(qids, g->rank[q], s);
    }
    return qids;
}

static PyObject *reader_finish(RunReader *self, PyObject *args) {
    int float32;
    if (!PyArg_ParseTuple(args, "p", &float32))
        return NULL;
    if (self->irregular || self->rows == 0 || self->tag == NULL || self->grade_limit >= 0)
        Py_RETURN_NONE; /* no data line: the line reader says so */
    Py_ssize_t n = self->rows, t = self->qids.n;
    PyObject *result = NULL, *qids = NULL, *bounds = NULL, *ids = NULL;
    Groups g = {NULL, NULL, NULL, NULL};
    double *key = float32 ? PyMem_Malloc((size_t)n * sizeof(double)) : self->score;
    if (key == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int status = reader_group(self, &g);
    if (status < 0)
        goto done;
    if (status > 0) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    if (float32)
        for (Py_ssize_t r = 0; r < n; r++)
            key[r] = (double)(float)self->score[r];
    Order o = {&self->docnos, key};
    for (Py_ssize_t k = 0; k < t; k++)
        order_topic(g.idx + g.start[k], g.tmp, g.start[k + 1] - g.start[k], &o);
    int64_t *out;
    if ((ids = new_array(n, &out)) == NULL)
        goto done;
    look_up(self, g.idx, n, out);
    if ((bounds = new_array(t + 1, &out)) == NULL)
        goto done;
    for (Py_ssize_t k = 0; k <= t; k++)
        out[k] = g.start[k];
    if ((qids = qid_list(self, &g)) == NULL) { /* not UTF-8 after all: numpy's to say */
        PyErr_Clear();
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    result = PyTuple_Pack(4, self->tag, qids, bounds, ids);
done:
    Py_XDECREF(qids);
    Py_XDECREF(bounds);
    Py_XDECREF(ids);
    groups_free(&g);
    if (float32)
        PyMem_Free(key);
    return result;
}

static inline int id_compare(const Order *o, Py_ssize_t a, Py_ssize_t b) {
    return (o->key[a] > o->key[b]) - (o->key[a] < o->key[b]);
}

/* a qrels file read (RunReader(None, ..., grade_limit)): (table, qids, bounds, ids,
 * grades), its distinct docnos numbered in the table as first met, each topic's rows by
 * docno number; None where the numpy reader is to read it */
static PyObject *reader_finish_qrels(RunReader *self, PyObject *Py_UNUSED(ignored)) {
    if (self->irregular || self->rows == 0 || self->grade_limit < 0)
        Py_RETURN_NONE;
    Py_ssize_t n = self->rows, t = self->qids.n;
    PyObject *result = NULL, *qids = NULL, *bounds = NULL, *ids = NULL, *grades = NULL;
    DocnoTable *table = NULL;
    Groups g = {NULL, NULL, NULL, NULL};
    const unsigned char **rows = PyMem_Malloc((size_t)n * sizeof(unsigned char *));
    double *number = PyMem_Malloc((size_t)n * sizeof(double));
    int64_t *id = PyMem_Malloc((size_t)n * sizeof(int64_t));
    if (!rows || !number || !id) {
        PyErr_NoMemory();
        goto done;
    }
    int status = reader_group(self, &g);
    if (status < 0)
        goto done;
    if (status > 0) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    table = (DocnoTable *)DocnoTableType.tp_alloc(&DocnoTableType, 0);
    if (table == NULL)
        goto done;
    for (Py_ssize_t r = 0; r < n; r++)
        rows[r] = self->docnos.bytes + self->docnos.off[r];
    if (table_fill(table, n, rows, self->docnos.len, self->hash, id) < 0)
        goto done;
    for (Py_ssize_t r = 0; r < n; r++)
        number[r] = (double)id[r]; /* exact: fewer than 2**31 */
    Order o = {NULL, number};
    for (Py_ssize_t k = 0; k < t; k++)
        sort_rows(g.idx + g.start[k], g.tmp, g.start[k + 1] - g.start[k], &o, id_compare);
    int64_t *out, *grade;
    if ((ids = new_array(n, &out)) == NULL || (grades = new_array(n, &grade)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = id[g.idx[i]];
        grade[i] = (int64_t)self->score[g.idx[i]];
    }
    if ((bounds = new_array(t + 1, &out)) == NULL)
        goto done;
    for (Py_ssize_t k = 0; k <= t; k++)
        out[k] = g.start[k];
    if ((qids = qid_list(self, &g)) == NULL) { /* not UTF-8 after all: numpy's to say */
        PyErr_Clear();
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    result = PyTuple_Pack(5, (PyObject *)table, qids, bounds, ids, grades);
done:
    Py_XDECREF(table);
    Py_XDECREF(qids);
    Py_XDECREF(bounds);
    Py_XDECREF(ids);
    Py_XDECREF(grades);
    groups_free(&g);
    PyMem_Free(rows);
    PyMem_Free(number);
    PyMem_Free(id);
    return result;
}

static PyMethodDef reader_methods[] = {
    {"feed", (PyCFunction)reader_feed, METH_VARARGS,
     "feed(buf, start, size): the lines of buf[start:start+size] (whole lines, the last "
     "ending with \\n, 8 bytes or more after it); their number, or -1 once the file is "
     "irregular"},
    {"finish_qrels", (PyCFunction)reader_finish_qrels, METH_NOARGS,
     "finish_qrels(): (table, qids, bounds, ids, grades), or None (irregular)"},
    {"finish", (PyCFunction)reader_finish, METH_VARARGS,
     "finish(float32): (tag, qids, bounds, ids) in trec_eval order, or None (irregular)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RunReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "judgeapp.formats._runread.RunReader",
    .tp_basicsize = sizeof(RunReader),
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "RunReader(table, max_line, max_token): a run file read for evaluate",
    .tp_init = (initproc)reader_init,
    .tp_new = PyType_GenericNew,
    .tp_methods = reader_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_runread",
    .m_doc = "A TREC run file read for evaluate in one pass over its bytes (_runread.c).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__runread(void) {
    if (PyType_Ready(&DocnoTableType) < 0 || PyType_Ready(&RunReaderType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&DocnoTableType);
    Py_INCREF(&RunReaderType);
    if (PyModule_AddObject(m, "DocnoTable", (PyObject *)&DocnoTableType) < 0 ||
        PyModule_AddObject(m, "RunReader", (PyObject *)&RunReaderType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
