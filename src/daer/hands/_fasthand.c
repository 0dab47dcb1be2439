/*
 * Native best-胡 search for daer.hands.evaluate (optional accelerator).
 *
 * The same search as the pure-Python fast path, without caches: a dealt 坎 or
 * 垅 is fixed (with the winning card of its kind it may also become a 招), then
 * the free cards are decomposed depth first from the lowest kind (small kinds
 * 0-9 before big kinds 10-19), trying for that card: three of a kind, pair,
 * run, 二七十, and the two 绞.  The arrangement with the most 胡 wins; on a tie
 * the first found is kept.  Group codes match daer.hands.evaluate.KIND_CODES:
 * 0 垅, 1 招, 2 坎, 3 碰, 4 顺, 5 绞, 6 对.
 *
 * The Python module falls back to its own search when this extension is absent
 * (DAER_PURE_PYTHON=1 forces that); tests run both against the slow reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NK 20
#define MAX_TABLES 32
#define MAX_GROUPS 16

enum { G_LONG, G_ZHAO, G_KAN, G_PENG, G_RUN, G_JIAO, G_PAIR, G_RUN2710, G_JIAO_BIG };

typedef struct {
    int peng[NK], kan[NK], zhao[NK], lng[NK], run[NK], w2710[2];
    int used;
} Table;

static Table tables[MAX_TABLES];

typedef struct {
    int code, k, hu;
} Grp;

typedef struct {
    const Table *t;
    int c[NK];
    int pairs_left;
    Grp stack[MAX_GROUPS];
    int depth;
    int hu;
    int best_hu;
    int want_path;
    Grp best[MAX_GROUPS];
    int best_depth;
} Search;

static void push(Search *s, int code, int k, int hu) {
    s->stack[s->depth].code = code;
    s->stack[s->depth].k = k;
    s->stack[s->depth].hu = hu;
    s->depth++;
    s->hu += hu;
}

static void pop(Search *s) {
    s->depth--;
    s->hu -= s->stack[s->depth].hu;
}

static void dfs(Search *s, int k) {
    int *c = s->c;
    while (k < NK && c[k] == 0) k++;
    if (k == NK) {
        if (s->pairs_left == 0 && s->hu > s->best_hu) {
            s->best_hu = s->hu;
            if (s->want_path) {
                memcpy(s->best, s->stack, sizeof(Grp) * (size_t)s->depth);
                s->best_depth = s->depth;
            }
        }
        return;
    }
    if (s->depth >= MAX_GROUPS) return;
    const Table *t = s->t;
    int n = k % 10; /* 0-based number */
    int big = k >= 10;
    if (c[k] >= 3) {
        c[k] -= 3;
        push(s, G_PENG, k, t->peng[k]);
        dfs(s, k);
        pop(s);
        c[k] += 3;
    }
    if (c[k] >= 2 && s->pairs_left > 0) {
        c[k] -= 2;
        s->pairs_left--;
        push(s, G_PAIR, k, 0);
        dfs(s, k);
        pop(s);
        s->pairs_left++;
        c[k] += 2;
    }
    if (n <= 7 && c[k + 1] && c[k + 2]) {
        c[k]--, c[k + 1]--, c[k + 2]--;
        push(s, G_RUN, k, t->run[k]);
        dfs(s, k);
        pop(s);
        c[k]++, c[k + 1]++, c[k + 2]++;
    }
    if (n == 1 && c[k + 5] && c[k + 8]) {
        c[k]--, c[k + 5]--, c[k + 8]--;
        push(s, G_RUN2710, k, t->w2710[big]);
        dfs(s, k);
        pop(s);
        c[k]++, c[k + 5]++, c[k + 8]++;
    }
    if (!big && c[k + 10]) {
        if (c[k] >= 2) {
            c[k] -= 2, c[k + 10]--;
            push(s, G_JIAO, k, 0);
            dfs(s, k);
            pop(s);
            c[k] += 2, c[k + 10]++;
        }
        if (c[k + 10] >= 2) {
            c[k]--, c[k + 10] -= 2;
            push(s, G_JIAO_BIG, k, 0);
            dfs(s, k);
            pop(s);
            c[k]++, c[k + 10] += 2;
        }
    }
}

/* Best hu of hand+win; -1 if none.  Fills s->best when want_path. */
static int solve(Search *s, const Table *t, const int *hand, int win, int meld_quads, int need, int pwq,
                 int want_path) {
    Grp fixed[MAX_GROUPS];
    int nfixed = 0, quads = meld_quads, fixed_hu = 0, free_cards = 0;
    int base[NK];
    for (int k = 0; k < NK; k++) {
        base[k] = hand[k];
        if (hand[k] >= 3 && k != win) {
            if (nfixed >= MAX_GROUPS) return -1;
            if (hand[k] == 4) {
                fixed[nfixed].code = G_LONG;
                fixed[nfixed].hu = t->lng[k];
                quads++;
            } else {
                fixed[nfixed].code = G_KAN;
                fixed[nfixed].hu = t->kan[k];
            }
            fixed[nfixed].k = k;
            fixed_hu += fixed[nfixed].hu;
            nfixed++;
            base[k] = 0;
        }
        free_cards += base[k];
    }
    int best = -1;
    int nbranch = (win >= 0 && hand[win] == 3) ? 2 : 1;
    Grp best_path[MAX_GROUPS];
    int best_len = 0;
    for (int b = 0; b < nbranch; b++) {
        Grp extra;
        int has_extra = 0, q = quads, cards = free_cards;
        memcpy(s->c, base, sizeof(base));
        if (win >= 0) {
            if (nbranch == 2) {
                has_extra = 1;
                extra.k = win;
                if (b == 0) { /* the 坎 stays whole, the winning card is free */
                    extra.code = G_KAN;
                    extra.hu = t->kan[win];
                    s->c[win] = 1;
                    cards += 1 - 3;
                } else { /* the 坎 takes the winning card: 招 */
                    extra.code = G_ZHAO;
                    extra.hu = t->zhao[win];
                    s->c[win] = 0;
                    cards -= 3;
                    q++;
                }
            } else {
                s->c[win] += 1;
                cards += 1;
            }
        }
        int pairs = (q > 0 && pwq) ? 1 : 0;
        int groups_left = need - nfixed - has_extra;
        if (groups_left < pairs || cards != 3 * (groups_left - pairs) + 2 * pairs) continue;
        s->t = t;
        s->pairs_left = pairs;
        s->depth = 0;
        s->hu = 0;
        s->best_hu = -1;
        s->best_depth = 0;
        s->want_path = want_path;
        dfs(s, 0);
        if (s->best_hu < 0) continue;
        int total = s->best_hu + fixed_hu + (has_extra ? extra.hu : 0);
        if (total > best) {
            best = total;
            if (want_path) {
                best_len = 0;
                for (int i = 0; i < nfixed; i++) best_path[best_len++] = fixed[i];
                if (has_extra) best_path[best_len++] = extra;
                for (int i = 0; i < s->best_depth && best_len < MAX_GROUPS; i++) best_path[best_len++] = s->best[i];
            }
        }
    }
    if (want_path && best >= 0) {
        memcpy(s->best, best_path, sizeof(Grp) * (size_t)best_len);
        s->best_depth = best_len;
    }
    return best;
}

static int read_ints(PyObject *seq, int *out, Py_ssize_t n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %zd items", what, n);
        Py_DECREF(fast);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

static const Table *get_table(int slot) {
    if (slot < 0 || slot >= MAX_TABLES || !tables[slot].used) {
        PyErr_SetString(PyExc_ValueError, "unknown table slot");
        return NULL;
    }
    return &tables[slot];
}

static PyObject *set_table(PyObject *self, PyObject *args) {
    int slot;
    PyObject *peng, *kan, *zhao, *lng, *run, *w2710;
    if (!PyArg_ParseTuple(args, "iOOOOOO", &slot, &peng, &kan, &zhao, &lng, &run, &w2710)) return NULL;
    if (slot < 0 || slot >= MAX_TABLES) {
        PyErr_SetString(PyExc_ValueError, "table slot out of range");
        return NULL;
    }
    Table t;
    if (read_ints(peng, t.peng, NK, "peng") || read_ints(kan, t.kan, NK, "kan") ||
        read_ints(zhao, t.zhao, NK, "zhao") || read_ints(lng, t.lng, NK, "long") ||
        read_ints(run, t.run, NK, "run") || read_ints(w2710, t.w2710, 2, "w2710"))
        return NULL;
    t.used = 1;
    tables[slot] = t;
    Py_RETURN_NONE;
}

static PyObject *group_tuple(const Grp *g) {
    int code = g->code, k = g->k;
    PyObject *cards;
    switch (code) {
    case G_LONG:
    case G_ZHAO: cards = Py_BuildValue("(iiii)", k, k, k, k); break;
    case G_KAN:
    case G_PENG: cards = Py_BuildValue("(iii)", k, k, k); break;
    case G_RUN: cards = Py_BuildValue("(iii)", k, k + 1, k + 2); break;
    case G_RUN2710: cards = Py_BuildValue("(iii)", k, k + 5, k + 8); code = G_RUN; break;
    case G_JIAO: cards = Py_BuildValue("(iii)", k, k, k + 10); break;
    case G_JIAO_BIG: cards = Py_BuildValue("(iii)", k, k + 10, k + 10); code = G_JIAO; break;
    default: cards = Py_BuildValue("(ii)", k, k); break;
    }
    if (!cards) return NULL;
    return Py_BuildValue("(iNi)", code, cards, g->hu);
}

static PyObject *best(PyObject *self, PyObject *args) {
    int slot, win, meld_quads, need, pwq;
    PyObject *hand_obj;
    if (!PyArg_ParseTuple(args, "iOiiip", &slot, &hand_obj, &win, &meld_quads, &need, &pwq)) return NULL;
    const Table *t = get_table(slot);
    if (!t) return NULL;
    int hand[NK];
    if (read_ints(hand_obj, hand, NK, "hand")) return NULL;
    if (win < -1 || win >= NK) {
        PyErr_SetString(PyExc_ValueError, "win out of range");
        return NULL;
    }
    Search s;
    int hu = solve(&s, t, hand, win, meld_quads, need, pwq, 1);
    if (hu < 0) Py_RETURN_NONE;
    PyObject *groups = PyTuple_New(s.best_depth);
    if (!groups) return NULL;
    for (int i = 0; i < s.best_depth; i++) {
        PyObject *g = group_tuple(&s.best[i]);
        if (!g) {
            Py_DECREF(groups);
            return NULL;
        }
        PyTuple_SET_ITEM(groups, i, g);
    }
    return Py_BuildValue("(iN)", hu, groups);
}

static PyObject *waits(PyObject *self, PyObject *args) {
    int slot, meld_quads, need, pwq;
    PyObject *hand_obj, *avail_obj;
    if (!PyArg_ParseTuple(args, "iOiipO", &slot, &hand_obj, &meld_quads, &need, &pwq, &avail_obj)) return NULL;
    const Table *t = get_table(slot);
    if (!t) return NULL;
    int hand[NK], avail[NK];
    if (read_ints(hand_obj, hand, NK, "hand") || read_ints(avail_obj, avail, NK, "available")) return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Search s;
    for (int w = 0; w < NK; w++) {
        if (avail[w] <= 0) continue;
        int hu = solve(&s, t, hand, w, meld_quads, need, pwq, 0);
        if (hu < 0) continue;
        PyObject *item = Py_BuildValue("(ii)", w, hu);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"set_table", set_table, METH_VARARGS, "set_table(slot, peng, kan, zhao, long, run, w2710): load a 胡 table."},
    {"best", best, METH_VARARGS,
     "best(slot, hand, win, meld_quads, need, pair_with_quad) -> (hu, groups) | None."},
    {"waits", waits, METH_VARARGS,
     "waits(slot, hand, meld_quads, need, pair_with_quad, available) -> [(kind, hu)]."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "daer.hands._fasthand", "Native best-胡 search (optional accelerator).", -1, methods,
};

PyMODINIT_FUNC PyInit__fasthand(void) { return PyModule_Create(&moduledef); }
