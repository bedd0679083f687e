/* The compiled back end: one fixed C program that explores any traced flat model.

   The model arrives as data, a step table (model/engine/terms.py, lowered by specs/cvm.py): the nodes
   of one expression graph, per action instance its guard's conjuncts and its writes, and the
   invariants and step properties. This file never changes with the model, so it is compiled
   once per machine and cached; a new design or configuration costs no compilation.

   A state is an array of signed bytes, one per slot. Evaluation is over the graph with a memo
   stamped per state, so a subexpression shared by many instances (a server is alive, how many
   servers are alive) is computed once per state. Breadth-first search stores, per distinct state,
   a 64-bit fingerprint (in an open-addressed table), its parent and the instance that reached
   it; only the frontier keeps whole states. Exploration runs in chunks, so the caller can show
   progress, honour Ctrl-C and stop at a limit between chunks. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CONST, VAR, POST, NOT, AND, OR, ITE, EQ, NE, LT, LE, ADD, SUB, MUL, NEG };

typedef struct {
    int32_t nnodes, nslots, ninst, ninv, nstep;
    const int32_t *op, *a0, *a1, *a2, *kids;
    const int32_t *gstart, *gcount, *gnodes;
    const int32_t *wstart, *wcount, *wslot, *wnode;
    const int32_t *inv, *step;
    /* property conjuncts, and per instance the ones its writes can change (Frames) */
    int32_t ninvc, nstepc;
    const int32_t *invc_node, *invc_prop, *stepc_node, *stepc_prop;
    const int32_t *ia_start, *ia_count, *ia_list, *sa_start, *sa_count, *sa_list;
    /* per instance, the instances whose guards read a slot it writes */
    const int32_t *ga_start, *ga_count, *ga_list;
    /* symmetry: nperm renamings of servers (n! of them, by Lehmer rank; 0 the identity; 1: no
       symmetry). None is built up front: a renaming's slot map, value maps and conditions are
       asked of the Python side (`need`) the first time a state is renamed by it, and `known`
       then says which it was (0 not asked yet, 1 built, 2 the layout is not closed under it). */
    int32_t nperm;
    /* per renaming q: perm_nseg[q] runs of slots that move unrenamed, as (to, from, length)
       triples in perm_seg[q] (a server's block of slots moves whole), and perm_nmap[q] slots
       whose value is renamed, as (to, from, value table offset, condition slot or -1)
       quadruples in perm_map[q], their tables in perm_table[q] (indexed by value + 128) */
    const int32_t *perm_nseg, *perm_nmap;
    const int32_t **perm_seg, **perm_map;
    const int8_t **perm_table;
    int8_t *known;
    int32_t (*need)(int32_t);
    int32_t ngoal; /* liveness goals (at most 8), evaluated when edges are recorded */
    const int32_t *goal;
    /* nservers > 0: only the renamings that order servers by signature are tried; a server's
       signature sums its nsig slots (sig_slot, sig_owner) by token and value */
    int32_t nservers, nsig;
    const int32_t *sig_slot, *sig_owner, *sig_token;
    /* the model's generated kernels (specs/ckern.py), or all null: the graph is interpreted */
    int32_t (*k_guard)(int32_t, const int8_t *);
    void (*k_apply)(int32_t, const int8_t *, int8_t *);
    int32_t (*k_conj)(int32_t, const int8_t *);
    int32_t (*k_inv)(int32_t, const int8_t *);
    int32_t (*k_step)(int32_t, const int8_t *, const int8_t *);
    int32_t (*k_goal)(int32_t, const int8_t *);
    int32_t (*k_image)(int32_t, const int8_t *, int8_t *);
} Prog;

typedef struct {
    int32_t op, a0, a1, a2;
} Node;

typedef struct {
    uint32_t stamp;
    int32_t val;
} Memo;

typedef struct {
    Prog p;
    Node *nodes;
    Memo *memo;
    uint32_t gen;
    const int8_t *cur, *nxt;
    /* visited: fingerprints and state indexes */
    uint64_t *fp;
    uint32_t *fidx;
    uint64_t cap, used;
    /* per state */
    uint32_t *parent;
    uint16_t *via;
    uint64_t nstates, scap;
    /* frontier: this level's states, the next level's */
    int8_t *lvl, *nlvl;
    uint64_t nlvl_n, nlvl_cap, lvl_n, lvl_pos, lvl_cap;
    uint64_t lvl_first; /* index of the first state of the current level */
    int32_t depth;
    uint64_t transitions;
    int32_t *first_inv;    /* per invariant: the first state that breaks it, or -1 */
    int64_t *step_u;       /* per step property: the state before, or -1 */
    int32_t *step_i;       /* ... and the instance */
    /* edges, when recorded: (from, to, instance) */
    int record_edges;
    uint32_t *eu, *ev;
    uint16_t *ei;
    uint64_t nedges, ecap;
    uint8_t *gbits; /* per state, bit j: goal j holds (when edges are recorded) */
    int8_t *tmp, *canon, *probe, *succ;
    int32_t words; /* 64-bit words of a state's enabled set */
    int64_t rec;   /* bytes of a frontier record: the state, padded, then its enabled set */
    int32_t *succ_i;
    int failed;
} Ctx;

static int32_t ev_node(Ctx *c, int32_t n);

/* a node's value in the current state: constants and slots directly, anything else through
   the memo */
static inline int32_t ev(Ctx *c, int32_t n) {
    const Node *x = c->nodes + n;
    if (x->op == VAR) return c->cur[x->a0];
    if (x->op == CONST) return x->a0;
    if (c->memo[n].stamp == c->gen) return c->memo[n].val;
    return ev_node(c, n);
}

static int32_t ev_node(Ctx *c, int32_t n) {
    const Node *x = c->nodes + n;
    const int32_t *kids = c->p.kids;
    int32_t a = x->a0, r;
    switch (x->op) {
    case CONST: r = a; break;
    case VAR: r = c->cur[a]; break;
    case POST: r = c->nxt[a]; break;
    case NOT: r = !ev(c, a); break;
    case AND: {
        r = 1;
        for (int32_t k = 0; k < x->a1; k++)
            if (!ev(c, kids[a + k])) { r = 0; break; }
        break;
    }
    case OR: {
        r = 0;
        for (int32_t k = 0; k < x->a1; k++)
            if (ev(c, kids[a + k])) { r = 1; break; }
        break;
    }
    case ITE: r = ev(c, a) ? ev(c, x->a1) : ev(c, x->a2); break;
    case EQ: r = ev(c, a) == ev(c, x->a1); break;
    case NE: r = ev(c, a) != ev(c, x->a1); break;
    case LT: r = ev(c, a) < ev(c, x->a1); break;
    case LE: r = ev(c, a) <= ev(c, x->a1); break;
    case ADD: r = ev(c, a) + ev(c, x->a1); break;
    case SUB: r = ev(c, a) - ev(c, x->a1); break;
    case MUL: r = ev(c, a) * ev(c, x->a1); break;
    case NEG: r = -ev(c, a); break;
    default: r = 0;
    }
    c->memo[n].stamp = c->gen;
    c->memo[n].val = r;
    return r;
}

static void fresh(Ctx *c) {
    if (++c->gen == 0) {
        memset(c->memo, 0, sizeof(Memo) * (size_t)c->p.nnodes);
        c->gen = 1;
    }
}

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* wyhash's multiply-and-fold over 16 bytes at a time, finished with a full mix */
static inline uint64_t mum(uint64_t a, uint64_t b) {
    __uint128_t m = (__uint128_t)a * b;
    return (uint64_t)m ^ (uint64_t)(m >> 64);
}

static uint64_t hash(const int8_t *s, int32_t n) {
    const uint64_t P0 = 0xa0761d6478bd642fULL, P1 = 0xe7037ed1a0b428dbULL;
    uint64_t h = P0 ^ (uint64_t)n;
    int32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint64_t a, b;
        memcpy(&a, s + i, 8);
        memcpy(&b, s + i + 8, 8);
        h = mum(a ^ P0, b ^ h ^ P1);
    }
    uint64_t a = 0, b = 0;
    int32_t left = n - i;
    memcpy(&a, s + i, (size_t)(left < 8 ? left : 8));
    if (left > 8) memcpy(&b, s + i + 8, (size_t)(left - 8));
    h = mix(mum(a ^ P1, b ^ h ^ P0) ^ (uint64_t)left);
    return h ? h : 1;
}

/* Is renaming q there to use? Its maps are asked for the first time it is wanted. */
static int ready(const Prog *p, int32_t q) {
    if (!p->known[q]) p->known[q] = p->need(q) ? 1 : 2;
    return p->known[q] == 1;
}

/* renaming q's image of s, into o: straight-line where the kernels have code for q, else its
   runs copied whole and its renamed slots one by one */
static void build(const Prog *p, const int8_t *s, int32_t q, int8_t *o) {
    if (p->k_image && p->k_image(q, s, o)) return;
    const int8_t *table = p->perm_table[q] + 128;
    const int32_t *seg = p->perm_seg[q], *map = p->perm_map[q];
    for (int32_t k = 0, m = p->perm_nseg[q]; k < m; k++, seg += 3)
        memcpy(o + seg[0], s + seg[1], (size_t)seg[2]);
    for (int32_t k = 0, m = p->perm_nmap[q]; k < m; k++, map += 4) {
        int8_t v = s[map[1]];
        if (map[3] < 0 || s[map[3]]) v = table[map[2] + v];
        o[map[0]] = v;
    }
}

/* One renaming's image of s, compared with the least image so far. Returns the new least
   image, in *out (the buffers swap), or best. */
static const int8_t *image(const Prog *p, const int8_t *s, int32_t q, const int8_t *best,
                           int8_t **out, int8_t **spare) {
    int8_t *o = *out;
    build(p, s, q, o);
    if (best && memcmp(o, best, (size_t)p->nslots) >= 0) return best;
    *out = *spare;
    *spare = o;
    return o;
}

/* the Lehmer rank of a renaming (newname[old] for each old name): 0 for the identity */
static int32_t rank_of(const int32_t *newname, int32_t n) {
    int32_t r = 0;
    for (int32_t a = 0; a < n; a++) {
        int32_t smaller = 0;
        for (int32_t b = a + 1; b < n; b++) smaller += newname[b] < newname[a];
        r = r * (n - a) + smaller;
    }
    return r;
}

/* Does the renaming newname leave s as it is? (Built into o; a renaming the layout is not
   closed under does not.) */
static int fixes(const Prog *p, const int8_t *s, const int32_t *newname, int8_t *o) {
    int32_t q = rank_of(newname, p->nservers);
    if (!ready(p, q)) return 0;
    build(p, s, q, o);
    return memcmp(o, s, (size_t)p->nslots) == 0;
}

/* Can the tied servers order[a..e) be put in any order without changing s? They can when
   swapping the first two and rotating them all leave it as it is: those two generate every
   order (model/engine/canonical.py's least_renaming asks the same). */
static int interchangeable(const Prog *p, const int8_t *s, const int32_t *order, int32_t a,
                           int32_t e, int8_t *o) {
    int32_t newname[8];
    for (int32_t x = 0; x < p->nservers; x++) newname[x] = x;
    newname[order[a]] = order[a + 1];
    newname[order[a + 1]] = order[a];
    if (!fixes(p, s, newname, o)) return 0;
    for (int32_t x = 0; x < p->nservers; x++) newname[x] = x;
    for (int32_t i = a; i < e; i++) newname[order[i]] = order[i + 1 < e ? i + 1 : a];
    return fixes(p, s, newname, o);
}

/* the candidates: every renaming that lists servers in order of signature (servers with equal
   signatures in every order, or in one order where they are interchangeable: `one`), new names
   given position by position */
static void candidates(const Prog *p, const int8_t *s, int32_t k, const int32_t *order,
                       const int32_t *group_end, const int8_t *one, int32_t *newname,
                       uint32_t used, const int8_t **best, int8_t **out, int8_t **spare) {
    int32_t n = p->nservers;
    if (k == n) {
        int32_t q = rank_of(newname, n);
        if (q == 0) {
            if (!*best || memcmp(s, *best, (size_t)p->nslots) < 0) *best = s;
        } else if (ready(p, q))
            *best = image(p, s, q, *best, out, spare);
        return;
    }
    /* position k takes any unused server of its signature group */
    int32_t start = k;
    while (start > 0 && group_end[start - 1] == group_end[k]) start--;
    for (int32_t j = start; j < group_end[k]; j++) {
        int32_t old = order[j];
        if (used >> old & 1) continue;
        newname[old] = k;
        candidates(p, s, k + 1, order, group_end, one, newname, used | 1u << old, best, out,
                   spare);
        if (one[start]) break;
    }
}

/* the state's fingerprint under symmetry: the least image over the renamings (over those that
   order servers by signature, when every renaming is there) */
static uint64_t fingerprint(Ctx *c, const int8_t *s) {
    const Prog *p = &c->p;
    int32_t n = p->nslots;
    if (p->nperm <= 1) return hash(s, n);
    const int8_t *best = 0;
    int8_t *out = c->tmp, *spare = c->canon;
    int32_t ns = p->nservers;
    if (ns > 0 && ns <= 8) {
        /* equal signatures only add candidates, so a cheap sum will do */
        uint64_t sig[8] = {0};
        for (int32_t k = 0; k < p->nsig; k++)
            sig[p->sig_owner[k]] += ((uint64_t)p->sig_token[k] * 0x9e3779b97f4a7c15ULL + 1) *
                                    ((uint64_t)(uint8_t)s[p->sig_slot[k]] + 1);
        int32_t order[8], group_end[8], newname[8];
        for (int32_t a = 0; a < ns; a++) order[a] = a;
        for (int32_t a = 1; a < ns; a++)
            for (int32_t b = a; b > 0 && sig[order[b]] < sig[order[b - 1]]; b--) {
                int32_t t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        for (int32_t a = ns - 1; a >= 0; a--)
            group_end[a] = (a + 1 < ns && sig[order[a + 1]] == sig[order[a]]) ? group_end[a + 1]
                                                                                : a + 1;
        /* a tie of three or more whose members are interchangeable needs one order; two are
           ordered both ways, which costs no more than asking */
        int8_t one[8] = {0};
        for (int32_t a = 0; a < ns; a = group_end[a])
            if (group_end[a] - a >= 3) one[a] = (int8_t)interchangeable(p, s, order, a,
                                                                         group_end[a], c->probe);
        candidates(p, s, 0, order, group_end, one, newname, 0, &best, &out, &spare);
        /* none given (the Python side failed to build one: it raises after the chunk) */
        return hash(best ? best : s, n);
    }
    best = s;
    for (int32_t q = 1; q < p->nperm; q++)
        if (ready(p, q)) best = image(p, s, q, best, &out, &spare);
    return hash(best, n);
}

/* index of the state with fingerprint h, inserting it as `fresh_index` if absent;
   *added says which */
static uint32_t visit(Ctx *c, uint64_t h, uint32_t fresh_index, int *added) {
    if ((c->used + 1) * 2 > c->cap) {
        uint64_t nc = c->cap * 2;
        uint64_t *nf = calloc(nc, sizeof(uint64_t));
        uint32_t *ni = malloc(nc * sizeof(uint32_t));
        if (!nf || !ni) { c->failed = 1; free(nf); free(ni); *added = 0; return 0; }
        for (uint64_t k = 0; k < c->cap; k++) {
            if (!c->fp[k]) continue;
            uint64_t j = c->fp[k] & (nc - 1);
            while (nf[j]) j = (j + 1) & (nc - 1);
            nf[j] = c->fp[k];
            ni[j] = c->fidx[k];
        }
        free(c->fp);
        free(c->fidx);
        c->fp = nf;
        c->fidx = ni;
        c->cap = nc;
    }
    uint64_t j = h & (c->cap - 1);
    while (c->fp[j]) {
        if (c->fp[j] == h) { *added = 0; return c->fidx[j]; }
        j = (j + 1) & (c->cap - 1);
    }
    c->fp[j] = h;
    c->fidx[j] = fresh_index;
    c->used++;
    *added = 1;
    return fresh_index;
}

/* the invariants of state v, reached by instance `via` (-1: every conjunct) */
static void check_invariants(Ctx *c, const int8_t *s, uint32_t v, int32_t via) {
    const Prog *p = &c->p;
    c->cur = s;
    fresh(c);
    if (via < 0) {
        for (int32_t j = 0; j < p->ninv; j++)
            if (c->first_inv[j] < 0 && !(p->k_inv ? p->k_inv(j, s) : ev(c, p->inv[j])))
                c->first_inv[j] = (int32_t)v;
        return;
    }
    const int32_t *list = p->ia_list + p->ia_start[via];
    for (int32_t k = 0; k < p->ia_count[via]; k++) {
        int32_t q = list[k], j = p->invc_prop[q];
        if (c->first_inv[j] < 0 && !(p->k_conj ? p->k_conj(q, s) : ev(c, p->invc_node[q])))
            c->first_inv[j] = (int32_t)v;
    }
}

static int guard(Ctx *c, int32_t i) {
    const Prog *p = &c->p;
    if (p->k_guard) return p->k_guard(i, c->cur);
    const int32_t *g = p->gnodes + p->gstart[i];
    for (int32_t k = 0; k < p->gcount[i]; k++)
        if (!ev(c, g[k])) return 0;
    return 1;
}

/* A new state: its parent, the instance that reached it, its invariants, and its enabled set,
   the parent's (`bits`) with only the guards that read a slot `via` writes evaluated again. */
static int add_state(Ctx *c, const int8_t *s, uint32_t parent, int32_t via, const uint64_t *bits) {
    const Prog *p = &c->p;
    uint64_t v = c->nstates;
    if (v + 1 > c->scap) {
        uint64_t cap = c->scap ? c->scap * 2 : 1 << 16;
        uint32_t *np = realloc(c->parent, cap * sizeof(uint32_t));
        if (!np) return -1;
        c->parent = np;
        uint16_t *nv = realloc(c->via, cap * sizeof(uint16_t));
        if (!nv) return -1;
        c->via = nv;
        if (c->record_edges) {
            uint8_t *ng = realloc(c->gbits, cap);
            if (!ng) return -1;
            c->gbits = ng;
        }
        c->scap = cap;
    }
    if ((c->nlvl_n + 1) * (uint64_t)c->rec > c->nlvl_cap) {
        uint64_t cap = c->nlvl_cap ? c->nlvl_cap * 2 : (uint64_t)c->rec * 1024;
        int8_t *nb = realloc(c->nlvl, cap);
        if (!nb) return -1;
        c->nlvl = nb;
        c->nlvl_cap = cap;
    }
    c->nstates = v + 1;
    c->parent[v] = parent;
    c->via[v] = (uint16_t)(via < 0 ? 0xffff : via);
    int8_t *r = c->nlvl + c->nlvl_n * c->rec;
    memcpy(r, s, (size_t)p->nslots);
    c->nlvl_n++;
    check_invariants(c, s, (uint32_t)v, via); /* leaves the memo on s */
    if (c->record_edges) {
        uint8_t b = 0;
        for (int32_t j = 0; j < p->ngoal; j++)
            if (p->k_goal ? p->k_goal(j, s) : ev(c, p->goal[j])) b |= (uint8_t)(1u << j);
        c->gbits[v] = b;
    }
    uint64_t *out = (uint64_t *)(r + (c->rec - 8 * c->words));
    if (via < 0) {
        memset(out, 0, 8 * (size_t)c->words);
        for (int32_t i = 0; i < p->ninst; i++)
            if (guard(c, i)) out[i >> 6] |= 1ULL << (i & 63);
    } else {
        memcpy(out, bits, 8 * (size_t)c->words);
        const int32_t *list = p->ga_list + p->ga_start[via];
        for (int32_t k = 0; k < p->ga_count[via]; k++) {
            int32_t j = list[k];
            if (guard(c, j)) out[j >> 6] |= 1ULL << (j & 63);
            else out[j >> 6] &= ~(1ULL << (j & 63));
        }
    }
    return 0;
}

static int record_edge(Ctx *c, uint32_t u, uint32_t v, int32_t i) {
    if (c->nedges + 1 > c->ecap) {
        uint64_t cap = c->ecap ? c->ecap * 2 : 1 << 16;
        uint32_t *a = realloc(c->eu, cap * sizeof(uint32_t));
        if (!a) return -1;
        c->eu = a;
        uint32_t *b = realloc(c->ev, cap * sizeof(uint32_t));
        if (!b) return -1;
        c->ev = b;
        uint16_t *d = realloc(c->ei, cap * sizeof(uint16_t));
        if (!d) return -1;
        c->ei = d;
        c->ecap = cap;
    }
    c->eu[c->nedges] = u;
    c->ev[c->nedges] = v;
    c->ei[c->nedges] = (uint16_t)i;
    c->nedges++;
    return 0;
}

void cx_free(Ctx *c) {
    if (!c) return;
    free(c->nodes); free(c->memo); free(c->fp); free(c->fidx); free(c->parent); free(c->via);
    free(c->lvl); free(c->nlvl); free(c->first_inv); free(c->step_u); free(c->step_i);
    free(c->eu); free(c->ev); free(c->ei); free(c->gbits); free(c->tmp); free(c->canon);
    free(c->probe); free(c->succ);
    free(c->succ_i);
    free(c);
}

Ctx *cx_new(const Prog *p, const int8_t *init, int record_edges) {
    Ctx *c = calloc(1, sizeof(Ctx));
    if (!c) return 0;
    c->p = *p;
    int32_t n = p->nslots;
    c->nodes = malloc(sizeof(Node) * ((size_t)p->nnodes + 1));
    c->memo = calloc((size_t)p->nnodes + 1, sizeof(Memo));
    if (c->nodes)
        for (int32_t k = 0; k < p->nnodes; k++)
            c->nodes[k] = (Node){p->op[k], p->a0[k], p->a1[k], p->a2[k]};
    c->cap = 1 << 16;
    c->fp = calloc(c->cap, sizeof(uint64_t));
    c->fidx = malloc(c->cap * sizeof(uint32_t));
    c->first_inv = malloc(sizeof(int32_t) * (size_t)(p->ninv + 1));
    c->step_u = malloc(sizeof(int64_t) * (size_t)(p->nstep + 1));
    c->step_i = malloc(sizeof(int32_t) * (size_t)(p->nstep + 1));
    c->tmp = malloc((size_t)n + 8);
    c->canon = malloc((size_t)n + 8);
    c->probe = malloc((size_t)n + 8);
    c->succ = malloc((size_t)n * (size_t)(p->ninst + 1) + 8);
    c->succ_i = malloc(sizeof(int32_t) * (size_t)(p->ninst + 1));
    c->words = (p->ninst + 63) / 64;
    c->rec = ((p->nslots + 7) / 8) * 8 + 8 * (int64_t)c->words;
    c->record_edges = record_edges;
    if (!c->nodes || !c->memo || !c->fp || !c->fidx || !c->first_inv || !c->step_u ||
        !c->step_i || !c->tmp || !c->canon || !c->probe || !c->succ || !c->succ_i) {
        cx_free(c);
        return 0;
    }
    for (int32_t j = 0; j < p->ninv; j++) c->first_inv[j] = -1;
    for (int32_t j = 0; j < p->nstep; j++) c->step_u[j] = -1, c->step_i[j] = -1;
    int added;
    visit(c, fingerprint(c, init), 0, &added);
    if (add_state(c, init, 0xffffffffu, -1, 0) < 0) {
        cx_free(c);
        return 0;
    }
    return c;
}

/* Expand up to `budget` states (and stop before expanding a state deeper than max_depth, when
   max_depth >= 0). Returns 1 when the search is over, 0 when there is more to do, 2 when it
   stopped at max_depth with states left, -1 when memory ran out. */
int cx_run(Ctx *c, int64_t budget, int32_t max_depth) {
    const Prog *p = &c->p;
    int32_t n = p->nslots;
    while (budget-- > 0) {
        if (c->lvl_pos == c->lvl_n) {
            if (c->nlvl_n == 0) return 1;
            int8_t *t = c->lvl;
            uint64_t tc = c->lvl_cap;
            c->lvl = c->nlvl;
            c->lvl_cap = c->nlvl_cap;
            c->nlvl = t;
            c->nlvl_cap = tc;
            c->lvl_n = c->nlvl_n;
            c->lvl_pos = 0;
            c->nlvl_n = 0;
            c->lvl_first = c->nstates - c->lvl_n;
            if (c->lvl_first > 0) c->depth++;
        }
        if (max_depth >= 0 && c->depth >= max_depth) return 2;
        uint32_t u = (uint32_t)(c->lvl_first + c->lvl_pos);
        const int8_t *s = c->lvl + c->lvl_pos * c->rec;
        const uint64_t *bits = (const uint64_t *)(s + (c->rec - 8 * c->words));
        c->lvl_pos++;
        /* every successor first: the writes share one memo over `s` */
        c->cur = s;
        fresh(c);
        int32_t m = 0;
        for (int32_t w = 0; w < c->words; w++) {
            uint64_t b = bits[w];
            while (b) {
                int32_t i = w * 64 + __builtin_ctzll(b);
                b &= b - 1;
                int8_t *t = c->succ + (int64_t)m * n;
                memcpy(t, s, (size_t)n);
                if (p->k_apply) {
                    p->k_apply(i, s, t);
                } else {
                    int32_t w0 = p->wstart[i];
                    for (int32_t k = 0; k < p->wcount[i]; k++)
                        t[p->wslot[w0 + k]] = (int8_t)ev(c, p->wnode[w0 + k]);
                }
                c->succ_i[m++] = i;
            }
        }
        for (int32_t k = 0; k < m; k++) {
            const int8_t *t = c->succ + (int64_t)k * n;
            int32_t i = c->succ_i[k];
            c->transitions++;
            if (p->sa_count[i]) {
                c->cur = s;
                c->nxt = t;
                fresh(c);
                const int32_t *list = p->sa_list + p->sa_start[i];
                for (int32_t k2 = 0; k2 < p->sa_count[i]; k2++) {
                    int32_t q = list[k2], j = p->stepc_prop[q];
                    if (c->step_u[j] < 0 &&
                        !(p->k_step ? p->k_step(q, s, t) : ev(c, p->stepc_node[q])))
                        c->step_u[j] = u, c->step_i[j] = i;
                }
            }
            int added;
            uint32_t v = visit(c, fingerprint(c, t), (uint32_t)c->nstates, &added);
            if (c->failed) return -1;
            if (added && add_state(c, t, u, i, bits) < 0) return -1;
            if (c->record_edges && record_edge(c, u, v, i) < 0) return -1;
        }
    }
    return 0;
}

/* results */
uint64_t cx_states(Ctx *c) { return c->nstates; }
uint64_t cx_transitions(Ctx *c) { return c->transitions; }
int32_t cx_depth(Ctx *c) { return c->depth; }
uint64_t cx_frontier(Ctx *c) { return (c->lvl_n - c->lvl_pos) + c->nlvl_n; }
uint64_t cx_edges(Ctx *c) { return c->nedges; }
const uint32_t *cx_parent(Ctx *c) { return c->parent; }
const uint16_t *cx_via(Ctx *c) { return c->via; }
const int32_t *cx_first_inv(Ctx *c) { return c->first_inv; }
const int64_t *cx_step_u(Ctx *c) { return c->step_u; }
const int32_t *cx_step_i(Ctx *c) { return c->step_i; }
const uint32_t *cx_eu(Ctx *c) { return c->eu; }
const uint32_t *cx_ev(Ctx *c) { return c->ev; }
const uint16_t *cx_ei(Ctx *c) { return c->ei; }
const uint8_t *cx_gbits(Ctx *c) { return c->gbits; }
uint64_t cx_bytes(Ctx *c) {
    return c->cap * (sizeof(uint64_t) + sizeof(uint32_t)) +
           c->scap * (sizeof(uint32_t) + sizeof(uint16_t)) + c->lvl_cap + c->nlvl_cap +
           c->ecap * (2 * sizeof(uint32_t) + sizeof(uint16_t));
}

/* from now on, evaluate the model through its generated kernels (specs/ckern.py) */
void cx_set_kernels(Ctx *c, void *guard, void *apply, void *conj, void *inv, void *step,
                    void *goal, void *image) {
    c->p.k_guard = (int32_t (*)(int32_t, const int8_t *))guard;
    c->p.k_apply = (void (*)(int32_t, const int8_t *, int8_t *))apply;
    c->p.k_conj = (int32_t (*)(int32_t, const int8_t *))conj;
    c->p.k_inv = (int32_t (*)(int32_t, const int8_t *))inv;
    c->p.k_step = (int32_t (*)(int32_t, const int8_t *, const int8_t *))step;
    c->p.k_goal = (int32_t (*)(int32_t, const int8_t *))goal;
    c->p.k_image = (int32_t (*)(int32_t, const int8_t *, int8_t *))image;
}

/* the step table's layout, checked by the Python side against its own */
int32_t cx_prog_size(void) { return (int32_t)sizeof(Prog); }
