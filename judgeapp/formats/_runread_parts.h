/* Byte strings, their hashes and tables, scores and trec_eval's order of a topic's rows:
 * the pieces of judgeapp/formats/_runread.c (included there, compiled with it). */
#ifndef JUDGEAPP_RUNREAD_PARTS_H
#define JUDGEAPP_RUNREAD_PARTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte strings and their hashes -------------------------------------------------- */

static inline uint64_t load_word(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Every string handled here has at least 8 readable bytes after its end (the blocks'
 * padding, the slack kept after the bytes of a Strings), so its last word is read whole
 * and the bytes past its end masked off: no byte-by-byte loop, no call of memcpy. */
#define SLACK 8

/* the first n bytes (0 < n <= 8) of a word in memory order, the others zero */
static inline uint64_t word_head(const unsigned char *p, Py_ssize_t n) {
    uint64_t w = load_word(p);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return n >= 8 ? w : w & ~(~0ULL >> (8 * n));
#else
    return n >= 8 ? w : w & ((1ULL << (8 * n)) - 1);
#endif
}

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    while (n > 8) {
        h = (h ^ load_word(p)) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0)
        h = (h ^ word_head(p, n)) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 29;
    return h;
}

static inline int bytes_equal(const unsigned char *a, const unsigned char *b, Py_ssize_t n) {
    while (n > 8) {
        if (load_word(a) != load_word(b))
            return 0;
        a += 8;
        b += 8;
        n -= 8;
    }
    return n <= 0 || word_head(a, n) == word_head(b, n);
}

/* where the token starting at p ends: its first byte <= 32 (white space, a line end, a
 * control character). Eight bytes at a time: a byte below 33 sets its top bit in
 * (x - 0x21..) & ~x & 0x80.., and the lowest byte so flagged is the first such byte
 * (a borrow only reaches bytes above it; bytes >= 0x80 are never flagged) */
static inline const unsigned char *token_end(const unsigned char *p) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (;;) {
        uint64_t x = load_word(p);
        uint64_t low = (x - 0x2121212121212121ULL) & ~x & 0x8080808080808080ULL;
        if (low)
            return p + (__builtin_ctzll(low) >> 3);
        p += 8;
    }
#else
    while (*p > 32)
        p++;
    return p;
#endif
}

/* strings kept one after another: string i is bytes[off[i] : off[i] + len[i]] */
typedef struct {
    unsigned char *bytes;
    size_t used, room;
    Py_ssize_t *off;
    Py_ssize_t *len;
    Py_ssize_t n, cap;
} Strings;

static void strings_free(Strings *s) {
    PyMem_Free(s->bytes);
    PyMem_Free(s->off);
    PyMem_Free(s->len);
    memset(s, 0, sizeof(*s));
}

static int grow(void **p, Py_ssize_t items, size_t size) {
    void *q = PyMem_Realloc(*p, (size_t)items * size);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    return 0;
}

/* append a string; its number, or -1 (memory error set) */
static Py_ssize_t strings_add(Strings *s, const unsigned char *p, Py_ssize_t n) {
    if (s->n == s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 1024;
        if (grow((void **)&s->off, cap, sizeof(Py_ssize_t)) < 0 ||
            grow((void **)&s->len, cap, sizeof(Py_ssize_t)) < 0)
            return -1;
        s->cap = cap;
    }
    if (s->used + (size_t)n + 2 * SLACK > s->room) {
        size_t room = s->room ? 2 * s->room : 1 << 16;
        while (room < s->used + (size_t)n + 2 * SLACK)
            room *= 2;
        if (grow((void **)&s->bytes, (Py_ssize_t)room, 1) < 0)
            return -1;
        s->room = room;
    }
    unsigned char *to = s->bytes + s->used;
    for (Py_ssize_t i = 0; i < n; i += 8) /* whole words: the source has slack too */
        memcpy(to + i, p + i, 8);
    s->off[s->n] = (Py_ssize_t)s->used;
    s->len[s->n] = n;
    s->used += (size_t)n;
    return s->n++;
}

static inline int strings_equal(const Strings *s, Py_ssize_t i, const unsigned char *p,
                                Py_ssize_t n) {
    return s->len[i] == n && bytes_equal(s->bytes + s->off[i], p, n);
}

/* byte order (strcmp's, and Python's str order for UTF-8): <0, 0, >0 */
static inline int strings_compare(const Strings *s, Py_ssize_t i, Py_ssize_t j) {
    Py_ssize_t a = s->len[i], b = s->len[j];
    int c = memcmp(s->bytes + s->off[i], s->bytes + s->off[j], (size_t)(a < b ? a : b));
    if (c)
        return c;
    return (a > b) - (a < b);
}

/* an open-addressing table of (hash, number) slots, linear probing, at most half full */
typedef struct {
    uint64_t hash;
    Py_ssize_t value; /* -1: free */
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;
    Py_ssize_t count;
} Slots;

static int slots_init(Slots *t, Py_ssize_t expected) {
    size_t size = 64;
    while (size < 2 * (size_t)expected + 2)
        size *= 2;
    t->slots = PyMem_Malloc(size * sizeof(Slot));
    if (t->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < size; i++)
        t->slots[i].value = -1;
    t->mask = size - 1;
    t->count = 0;
    return 0;
}

static void slots_free(Slots *t) {
    PyMem_Free(t->slots);
    t->slots = NULL;
}

/* the slot holding string (p, n) of `strings` under hash h, or the free slot where it
 * would go */
static inline Slot *slots_find(const Slots *t, const Strings *strings, uint64_t h,
                               const unsigned char *p, Py_ssize_t n) {
    size_t at = (size_t)(h >> 17) & t->mask;
    for (;;) {
        Slot *slot = &t->slots[at];
        if (slot->value < 0 ||
            (slot->hash == h && strings_equal(strings, slot->value, p, n)))
            return slot;
        at = (at + 1) & t->mask;
    }
}

static int slots_grow(Slots *t) {
    Slots bigger;
    if (slots_init(&bigger, 2 * t->count) < 0)
        return -1;
    for (size_t i = 0; i <= t->mask; i++) {
        Slot *slot = &t->slots[i];
        if (slot->value < 0)
            continue;
        size_t at = (size_t)(slot->hash >> 17) & bigger.mask;
        while (bigger.slots[at].value >= 0)
            at = (at + 1) & bigger.mask;
        bigger.slots[at] = *slot;
    }
    bigger.count = t->count;
    slots_free(t);
    *t = bigger;
    return 0;
}

/* a bytearray of n native int64 (numpy reads it without a copy) */
static PyObject *new_array(Py_ssize_t n, int64_t **data) {
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (out != NULL)
        *data = (int64_t *)PyByteArray_AS_STRING(out);
    return out;
}

/* ---- scores ------------------------------------------------------------------------- */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* float(token) as Python computes it, or 0 with *ok = 0 where the numpy reader (or the
 * line reader) refuses the token: '_', a byte beyond ASCII, NaN, not a number. Plain
 * decimals of up to 19 digits whose digits, as an integer, are below 2**53 are one exact
 * division (Clinger's fast path: both operands exact, so the quotient is correctly
 * rounded); any other form goes to Python's own parser, PyOS_string_to_double, which
 * float() uses. */
static double parse_score(const unsigned char *s, Py_ssize_t n, int *ok) {
    const unsigned char *p = s, *end = s + n;
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    uint64_t digits = 0;
    int count = 0, after = 0, point = 0;
    for (; p < end; p++) {
        unsigned d = (unsigned)*p - '0';
        if (d <= 9) {
            digits = digits * 10 + d;
            count++;
            after += point;
        } else if (*p == '.' && !point) {
            point = 1;
        } else {
            break;
        }
    }
    if (p == end && count >= 1 && count <= 19 && digits < (1ULL << 53)) {
        double value = (double)digits / POW10[after];
        *ok = 1;
        return negative ? -value : value;
    }
    char local[128];
    char *text = n < (Py_ssize_t)sizeof(local) ? local : PyMem_Malloc((size_t)n + 1);
    if (text == NULL) {
        *ok = 0;
        return 0.0;
    }
    int plain = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] == '_' || s[i] >= 0x80)
            plain = 0;
        text[i] = (char)s[i];
    }
    text[n] = 0;
    double value = 0.0;
    *ok = 0;
    if (plain) {
        char *stop = NULL;
        value = PyOS_string_to_double(text, &stop, NULL);
        if (value == -1.0 && PyErr_Occurred())
            PyErr_Clear();
        else if (stop == text + n && !isnan(value))
            *ok = 1;
    }
    if (text != local)
        PyMem_Free(text);
    return value;
}

/* ---- trec_eval's order -------------------------------------------------------------- */

typedef struct {
    const Strings *docnos;
    const double *key; /* the score compared (a C float's value for 9.x) */
} Order;

/* <0 when row a comes before row b: score descending, then docno descending */
static inline int row_compare(const Order *o, Py_ssize_t a, Py_ssize_t b) {
    double x = o->key[a], y = o->key[b];
    if (x != y)
        return x > y ? -1 : 1;
    return -strings_compare(o->docnos, a, b);
}

static inline int docno_compare(const Order *o, Py_ssize_t a, Py_ssize_t b) {
    return -strings_compare(o->docnos, a, b);
}

typedef int (*Compare)(const Order *, Py_ssize_t, Py_ssize_t);

/* sort idx[0:n] by cmp (a merge sort; tmp holds n items; short stretches by insertion) */
static void sort_rows(Py_ssize_t *idx, Py_ssize_t *tmp, Py_ssize_t n, const Order *o,
                      Compare cmp) {
    if (n <= 16) {
        for (Py_ssize_t i = 1; i < n; i++) {
            Py_ssize_t v = idx[i], j = i;
            while (j > 0 && cmp(o, v, idx[j - 1]) < 0) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    Py_ssize_t half = n / 2;
    sort_rows(idx, tmp, half, o, cmp);
    sort_rows(idx + half, tmp, n - half, o, cmp);
    if (cmp(o, idx[half - 1], idx[half]) <= 0)
        return; /* in order already */
    memcpy(tmp, idx, (size_t)half * sizeof(Py_ssize_t));
    Py_ssize_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        idx[k++] = cmp(o, idx[j], tmp[i]) < 0 ? idx[j++] : tmp[i++];
    while (i < half)
        idx[k++] = tmp[i++];
}

/* put one topic's rows (in file order) in trec_eval order: rows already in score order
 * (a run written by rank) only have their stretches of equal scores sorted by docno */
static void order_topic(Py_ssize_t *idx, Py_ssize_t *tmp, Py_ssize_t n, const Order *o) {
    const double *key = o->key;
    Py_ssize_t i;
    for (i = 1; i < n; i++)
        if (key[idx[i]] > key[idx[i - 1]])
            break;
    if (i < n) {
        sort_rows(idx, tmp, n, o, row_compare);
        return;
    }
    for (Py_ssize_t a = 0; a < n;) {
        Py_ssize_t b = a + 1;
        int sorted = 1;
        while (b < n && key[idx[b]] == key[idx[a]]) {
            if (sorted && docno_compare(o, idx[b - 1], idx[b]) > 0)
                sorted = 0;
            b++;
        }
        if (!sorted)
            sort_rows(idx + a, tmp, b - a, o, docno_compare);
        a = b;
    }
}

#endif
