/* userop.c - OpenCL C expressions from the caller, compiled at run time:
   user-defined operators (gpgpu_op_define), maps fused into a reduce's load
   (gpgpu_transform_reduce) and predicates for stream compaction
   (gpgpu_select).

   An expression is pasted into a #define of the kernel source, inside
   parentheses. Before anything is compiled it must pass gpgpu__expr_clean, which
   rejects whatever could end its slot early or hide text from the check
   (';', braces, '#', comments, quotes, backslash, trigraphs, digraphs,
   unbalanced brackets) and folds line breaks into spaces, since a newline
   would end the #define. It also refuses the cheap marks of pointer use:
   address-space keywords, casts to pointer types and unary '&'. The
   compiler judges the rest: a wrong expression is GPGPU_ERROR_BUILD with its
   log. None of this makes an expression from an untrusted source safe: it
   is code that runs with the program's rights (gpgpu.h says so).

   Select is three launches over tiles of wg * SELECT_ITEMS elements
   (kernels/userop.cl): count the kept elements of each part of a tile (a
   work item's run on CPUs, the whole tile on GPUs), scan those counts
   inclusively (gpgpu__scan_enqueue on u64), then write each part's kept
   elements from its offset. Partition, unique and run-length encoding
   (select_ops.c) are the same launches with another scatter kernel or
   flag: gpgpu__select_plan_get and gpgpu__select_enqueue serve them all. The predicate's checks run in the caller's
   trust: they stop text from escaping its slot, not an expression that
   misbehaves inside it (an out-of-bounds pointer, a barrier). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define COMPACT_AVX2 1
#endif

enum { EXPR_MAX = GPGPU__EXPR_MAX };

struct gpgpu__user_op {
    gpgpu_type type;
    char *source;   /* "#define USER_COMBINE (...)\n#define USER_IDENTITY (...)\n" */
};

/* ---- expressions ---------------------------------------------------------- */

/* The first two-character sequence in s that could open a comment or
   spell a brace, '#' or backslash another way, or NULL. One pass of
   compares (eight strstr calls were a tenth of a small call's time). */
static const char *forbidden_pair(const char *s)
{
    static const char *const pairs[] = {"/*", "//", "??", "<%", "%>", "<:", ":>", "%:"};
    for (; s[0] && s[1]; s++) {
        if (s[0] != '/' && s[0] != '?' && s[0] != '<' && s[0] != '%' && s[0] != ':')
            continue;
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
            if (s[0] == pairs[k][0] && s[1] == pairs[k][1])
                return pairs[k];
    }
    return NULL;
}

/* A word and its length, for compares without strlen. */
typedef struct {
    const char *s;
    size_t len;
} word;
#define WORD(s) {s, sizeof s - 1}

/* s, after a '*', closes a cast: blanks and qualifiers up to ')'. */
static int cast_end(const char *s)
{
    static const word quals[] = {WORD("const"), WORD("volatile"), WORD("restrict"),
                                 WORD("__restrict")};
    for (;;) {
        while (*s == ' ')
            s++;
        if (*s == ')')
            return 1;
        size_t k = 0, len = 0;
        for (; k < sizeof quals / sizeof quals[0]; k++) {
            len = quals[k].len;
            if (!strncmp(s, quals[k].s, len) && !isalnum((unsigned char)s[len]) && s[len] != '_')
                break;
        }
        if (k == sizeof quals / sizeof quals[0])
            return 0;
        s += len;
    }
}

/* The first mark of pointer use in s (blanks already folded to one space),
   written to what (a static string or the keyword found), or 0 if none: an
   address-space keyword, a cast to a pointer type (a "*" before ")", with
   only qualifiers between),
   or a unary "&". Cheap marks, not a proof: see gpgpu.h on trust. */
static int pointer_use(const char *s, char *what, size_t size)
{
    static const word spaces[] = {WORD("__global"), WORD("global"), WORD("__local"),
                                  WORD("local"), WORD("__private"), WORD("private"),
                                  WORD("__constant"), WORD("constant"), WORD("__generic"),
                                  WORD("generic")};
    char prev = '\0'; /* the last character before this one that is not a blank */
    for (const char *p = s; *p; p++) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *end = p;
            while (isalnum((unsigned char)*end) || *end == '_')
                end++;
            /* after a digit: 1.5f, 0x1p3; under 5 letters: shorter than any keyword */
            int not_keyword = (p > s && isdigit((unsigned char)p[-1])) || end - p < 5;
            for (size_t k = 0; !not_keyword && k < sizeof spaces / sizeof spaces[0]; k++)
                if (spaces[k].len == (size_t)(end - p) && !memcmp(p, spaces[k].s, end - p)) {
                    snprintf(what, size, "the address-space keyword \"%s\"", spaces[k].s);
                    return 1;
                }
            prev = end[-1];
            p = end - 1;
            continue;
        }
        if (*p == '*' && cast_end(p + 1)) {
            snprintf(what, size, "a cast to a pointer type (\"*)\")");
            return 1;
        }
        if (*p == '&') {
            if (p[1] == '&') { /* logical and: what follows is an operand */
                prev = '&';
                p++;
                continue;
            }
            if (!(isalnum((unsigned char)prev) || prev == '_' || prev == ')' || prev == ']' ||
                  prev == '.')) {
                snprintf(what, size, "a unary \"&\" (taking an address)");
                return 1;
            }
        }
        if (*p != ' ')
            prev = *p;
    }
    return 0;
}

/* Parentheses and brackets nest properly and close: the expression cannot
   close the parenthesis it is placed in. */
static int balanced(const char *s)
{
    char stack[EXPR_MAX];
    size_t depth = 0;
    for (; *s; s++) {
        if (*s == '(' || *s == '[') {
            stack[depth++] = *s == '(' ? ')' : ']';
        } else if (*s == ')' || *s == ']') {
            if (depth == 0 || stack[--depth] != *s)
                return 0;
        }
    }
    return depth == 0;
}

/* Each run of blanks, line breaks included, becomes one space, so that
   layout alone never makes another program. */
gpgpu_status gpgpu__expr_clean(gpgpu_context *ctx, const char *what, const char *expr,
                               char out[EXPR_MAX + 1])
{
    size_t len = strlen(expr), used = 0;
    if (len > EXPR_MAX)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s expression is %zu bytes long: at most %d allowed", what, len,
                           EXPR_MAX);
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)expr[k];
        if (c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f')
            c = ' ';
        if (c < 0x20 || c >= 0x7f || c == ';' || c == '{' || c == '}' || c == '#' || c == '"' ||
            c == '\'' || c == '\\' || c == '`')
            return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                               "%s expression \"%.80s\": character 0x%02x at offset %zu is not "
                               "allowed in an expression", what, expr, (unsigned char)expr[k], k);
        if (c != ' ' || (used && out[used - 1] != ' ')) /* one space per run: one program */
            out[used++] = (char)c;
    }
    if (used && out[used - 1] == ' ')
        used--;
    out[used] = '\0';
    if (used == 0)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s expression is empty", what);
    const char *pair = forbidden_pair(out);
    if (pair)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s expression \"%.80s\" contains \"%s\"", what, expr, pair);
    char use[64];
    if (pointer_use(out, use, sizeof use))
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s expression \"%.80s\" contains %s; expressions work on values, "
                           "never on pointers", what, expr, use);
    if (!balanced(out))
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s expression \"%.80s\" has unbalanced parentheses or brackets",
                           what, expr);
    return GPGPU_SUCCESS;
}

/* ---- user-defined operators ----------------------------------------------- */

static char *op_source(const char *combine, const char *identity)
{
    size_t len = strlen(combine) + strlen(identity) + 64;
    char *s = gpgpu__malloc(len);
    if (s)
        snprintf(s, len, "#define USER_COMBINE (%s)\n#define USER_IDENTITY (%s)\n", combine,
                 identity);
    return s;
}

/* Frees the context's operators (gpgpu_context_destroy calls it). */
static void user_ops_release(gpgpu_context *ctx)
{
    for (size_t k = 0; k < ctx->nuser_ops; k++)
        free(ctx->user_ops[k].source);
    free(ctx->user_ops);
    ctx->user_ops = NULL;
    ctx->nuser_ops = 0;
}

/* The index of an operator with this type and source, or -1. */
static long op_find(const gpgpu_context *ctx, gpgpu_type t, const char *source)
{
    for (size_t k = 0; k < ctx->nuser_ops; k++)
        if (ctx->user_ops[k].type == t && !strcmp(ctx->user_ops[k].source, source))
            return (long)k;
    return -1;
}

/* Appends the operator (taking source) and compiles the reduce program it
   will use, so that a bad expression fails now, with its log, and the first
   reduce finds the program built. The caller holds the lock. */
static gpgpu_status op_add(gpgpu_context *ctx, gpgpu_type t, char *source, gpgpu_op *op)
{
    struct gpgpu__user_op *ops =
        realloc(ctx->user_ops, (ctx->nuser_ops + 1) * sizeof *ctx->user_ops);
    if (!ops) {
        free(source);
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    ctx->user_ops = ops;
    gpgpu__context_on_destroy(ctx, user_ops_release);
    ops[ctx->nuser_ops] = (struct gpgpu__user_op){t, source};
    gpgpu_op id = GPGPU_OP_USER + (gpgpu_op)ctx->nuser_ops++;
    char options[128];
    const char *extra;
    gpgpu__program *probe;
    gpgpu_status s = gpgpu__type_op_options(ctx, t, id, options, sizeof options, &extra);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__program_get(ctx, "reduce", extra, options, &probe);
    if (s != GPGPU_SUCCESS) {
        ctx->nuser_ops--;
        free(source);
        return s;
    }
    *op = id;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_op_define(gpgpu_context *ctx, gpgpu_type t, const char *combine,
                             const char *identity, gpgpu_op *op)
{
    char c[EXPR_MAX + 1], id[EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, combine != NULL, __func__, "combine is NULL; need an expression in a and b");
    GPGPU__REQUIRE(ctx, identity != NULL, __func__, "identity is NULL; need an expression");
    GPGPU__REQUIRE(ctx, op != NULL, __func__, "op is NULL; need somewhere to store the operator");
    GPGPU__TRY(gpgpu__expr_clean(ctx, "combine", combine, c));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "identity", identity, id));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "user-defined operators need an OpenCL device");
    char *source = op_source(c, id);
    if (!source)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    gpgpu__lock(ctx);
    long found = op_find(ctx, t, source);
    gpgpu_status s = GPGPU_SUCCESS;
    if (found >= 0) {
        free(source);
        *op = GPGPU_OP_USER + (gpgpu_op)found;
    } else {
        s = op_add(ctx, t, source, op);
    }
    gpgpu__unlock(ctx);
    return s;
}

const char *gpgpu__user_op_source(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op)
{
    if (op < GPGPU_OP_USER || (size_t)(op - GPGPU_OP_USER) >= ctx->nuser_ops)
        return NULL;
    const struct gpgpu__user_op *u = &ctx->user_ops[op - GPGPU_OP_USER];
    return u->type == t ? u->source : NULL;
}

gpgpu_status gpgpu__type_op_options(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, char *buf,
                                    size_t size, const char **extra)
{
    *extra = NULL;
    if (op >= GPGPU_OP_USER) {
        *extra = gpgpu__user_op_source(ctx, t, op);
        if (!*extra)
            return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                               "op is %d; not an operator that gpgpu_op_define made for type %s on this context", op,
                               gpgpu__type(t)->name);
    } else if (op != GPGPU_SUM && op != GPGPU_MIN && op != GPGPU_MAX) {
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "op is %d; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX or an operator made by gpgpu_op_define", op);
    }
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    snprintf(buf, size, "-D TYPE_ID=%d -D OP_ID=%d", (int)t, op >= GPGPU_OP_USER ? GPGPU_OP_USER : op);
    return GPGPU_SUCCESS;
}

/* ---- expressions on the host --------------------------------------------- */

/* The last EXPR_MEMO expressions a context compiled for the host, and
   those the host refused (e NULL) with the reason: a call of a few
   elements then costs a string compare, not a parse. */
enum { EXPR_MEMO = 16 };
struct gpgpu__expr_memo {
    struct {
        char *text;
        gpgpu_type t;
        int with_i;
        gpgpu__hexpr *e;
        char why[GPGPU__EXPR_WHY];
    } slot[EXPR_MEMO];
    unsigned next;
};

static void expr_memo_release(gpgpu_context *ctx)
{
    struct gpgpu__expr_memo *m = ctx->expr_memo;
    if (!m)
        return;
    for (int k = 0; k < EXPR_MEMO; k++) {
        free(m->slot[k].text);
        gpgpu__hexpr_free(m->slot[k].e);
    }
    free(m);
    ctx->expr_memo = NULL;
}

int gpgpu__host_expr_route(const gpgpu_context *ctx, size_t weight)
{
    return ctx->host || gpgpu__host_below(ctx, GPGPU__HB_EXPR, weight);
}

/* The weight of n elements against the plan's expr threshold (lib/core/
   plan.c has the figures): an integer map, n; a float map on a CPU
   device, 2n (its copy is then summed in the kernels' order: the kernels
   win from half the integer maps' size); select, n / 16, and
   partition, n / 4 (their AVX2 compaction on one thread beat PoCL's
   kernels on two up to 2^22 and 2^20). */
size_t gpgpu__expr_weight(gpgpu__expr_use use, size_t n)
{
    switch (use) {
    case GPGPU__EXPR_MAP_F: return n > SIZE_MAX / 2 ? SIZE_MAX : 2 * n;
    case GPGPU__EXPR_SELECT: return n / 16;
    case GPGPU__EXPR_PARTITION: return n / 4;
    default: return n;
    }
}

gpgpu_status gpgpu__expr_refused(gpgpu_context *ctx, const char *func, int predicate,
                                 const char *why)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                       "%s: the host fallback evaluates %s in a part of OpenCL C only "
                       "(gpgpu.h); this one has %s",
                       func, predicate ? "predicates" : "maps", why);
}

/* The host's form of expr (a map: with_i 0; a predicate in x and i: 1)
   for type t, compiled once a context, or NULL where the host does not
   evaluate it (*why says why) or memory runs out. ctx locked; valid
   while it stays locked. */
static const gpgpu__hexpr *host_expr(gpgpu_context *ctx, const char *expr, gpgpu_type t,
                                     int with_i, const char **why)
{
    static const char no_memory[] = "no host memory to compile it";
    struct gpgpu__expr_memo *m = ctx->expr_memo;
    *why = no_memory;
    if (!m) {
        if (!(m = calloc(1, sizeof *m)))
            return NULL;
        ctx->expr_memo = m;
        gpgpu__context_on_destroy(ctx, expr_memo_release);
    }
    for (int k = 0; k < EXPR_MEMO; k++)
        if (m->slot[k].text && m->slot[k].t == t && m->slot[k].with_i == with_i &&
            !strcmp(m->slot[k].text, expr)) {
            *why = m->slot[k].why;
            return m->slot[k].e;
        }
    int k = (int)(m->next++ % EXPR_MEMO);
    char *text = strdup(expr);
    if (!text)
        return NULL;
    free(m->slot[k].text);
    gpgpu__hexpr_free(m->slot[k].e);
    m->slot[k].text = text;
    m->slot[k].t = t;
    m->slot[k].with_i = with_i;
    m->slot[k].e = gpgpu__hexpr_compile(expr, t, with_i, ctx->host, m->slot[k].why,
                                        sizeof m->slot[k].why);
    *why = m->slot[k].why;
    return m->slot[k].e;
}

/* Locks ctx and looks up the host's form of expr (*e, NULL where the host
   does not take it), the reason copied into why while locked (the memo's
   text may change once unlocked). A 64-bit type a device lacks is
   refused first, as the kernels would refuse it (ctx then unlocked). */
static gpgpu_status lock_host_expr(gpgpu_context *ctx, const char *expr, gpgpu_type t,
                                   int with_i, char why[GPGPU__EXPR_WHY],
                                   const gpgpu__hexpr **e)
{
    if (!ctx->host)
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
    const char *w;
    gpgpu__lock(ctx);
    *e = host_expr(ctx, expr, t, with_i, &w);
    /* a copy, not snprintf: half the instructions of a 1024-element call */
    const size_t len = strnlen(w, GPGPU__EXPR_WHY - 1);
    memcpy(why, w, len);
    why[len] = '\0';
    return GPGPU_SUCCESS;
}

/* Stream compaction by pred on the host, CHUNK elements at a time: each
   chunk's flags, then its kept elements to out[*count ..] (out may be in:
   an element moves down or stays) and, for partition, the others to rest. */
enum { CHUNK = 1 << 14 };

/* Select: each element is stored at out[kept] and counted if kept; four
   read before they are written (an in-place store, at or below the
   element's own place, may then not alias a later read), so that the
   loop runs at about four instructions an element. */
#define COMPACT(W)                                                             \
    do {                                                                       \
        const W *x = (const W *)in + k0;                                       \
        W *o = out;                                                            \
        size_t k = 0;                                                          \
        if (avx2) /* the vector steps, then the rest below */                  \
            kept = compact_avx2((const unsigned char *)x, len, f,             \
                                (unsigned char *)o, kept, sizeof(W), &k, NULL, NULL); \
        for (; k + 4 <= len; k += 4) {                                         \
            const W a = x[k], b = x[k + 1], c = x[k + 2], d = x[k + 3];        \
            o[kept] = a;                                                       \
            kept += f[k];                                                      \
            o[kept] = b;                                                       \
            kept += f[k + 1];                                                  \
            o[kept] = c;                                                       \
            kept += f[k + 2];                                                  \
            o[kept] = d;                                                       \
            kept += f[k + 3];                                                  \
        }                                                                      \
        for (; k < len; k++) {                                                 \
            o[kept] = x[k];                                                    \
            kept += f[k];                                                      \
        }                                                                      \
    } while (0)

#ifdef COMPACT_AVX2
/* The kept lanes of v (lanes: their permutation, from gpgpu__pack_lanes)
   to the front, stored whole at o: the lanes past them are written too,
   and later overwritten or past *count. */
#define PUT_KEPT(o, v, lanes)                                                  \
    _mm256_storeu_si256((__m256i *)(o),                                        \
                        _mm256_permutevar8x32_epi32(                           \
                            v, _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(lanes)))))

/* COMPACT with AVX2 for elements of w = 4 or 8 bytes, eight a step: the
   flags' mask picks a permutation that moves the kept elements to the
   front of their vector (about ten instructions for eight elements
   against four each); with r (partition), the others go to r[*others]
   the same way. Each vector is loaded before anything is stored at or
   below it, so it works in place. Returns kept; *done the elements
   taken. */
__attribute__((target("avx2,popcnt"))) static size_t
compact_avx2(const unsigned char *x, size_t len, const unsigned char *f, unsigned char *o,
             size_t kept, size_t w, size_t *done, unsigned char *r, size_t *others)
{
    const __m128i zero = _mm_setzero_si128();
    const uint64_t *pack = gpgpu__pack_lanes();
    size_t k = 0, oth = r ? *others : 0;
    for (; k + 8 <= len; k += 8) {
        const __m128i fl = _mm_loadl_epi64((const __m128i *)(f + k));
        const unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(fl, zero)) & 0xffu;
        if (w == 4) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(x + k * 4));
            PUT_KEPT(o + kept * 4, v, &pack[m]);
            kept += (size_t)__builtin_popcount(m);
            if (r) {
                PUT_KEPT(r + oth * 4, v, &pack[~m & 0xffu]);
                oth += 8 - (size_t)__builtin_popcount(m);
            }
        } else {
            for (unsigned h = 0; h < 2; h++) {
                const unsigned mh = m >> (4 * h) & 15u;
                const __m256i v = _mm256_loadu_si256((const __m256i *)(x + (k + 4 * h) * 8));
                PUT_KEPT(o + kept * 8, v, &pack[256 + mh]);
                kept += (size_t)__builtin_popcount(mh);
                if (r) {
                    PUT_KEPT(r + oth * 8, v, &pack[256 + (~mh & 15u)]);
                    oth += 4 - (size_t)__builtin_popcount(mh);
                }
            }
        }
    }
    if (r)
        *others = oth;
    *done = k;
    return kept;
}
#else
#define compact_avx2(x, len, f, o, kept, w, done, r, others) (kept) /* the loops do all */
#endif

/* Partition: the same, and the others to rest. */
#define SPLIT(W)                                                               \
    do {                                                                       \
        const W *x = (const W *)in + k0;                                       \
        W *o = out, *r = rest;                                                 \
        size_t k = 0;                                                          \
        if (avx2)                                                              \
            kept = compact_avx2((const unsigned char *)x, len, f,             \
                                (unsigned char *)o, kept, sizeof(W), &k,       \
                                (unsigned char *)r, &others);                  \
        for (; k < len; k++) {                                                 \
            const W v = x[k];                                                  \
            o[kept] = v;                                                       \
            kept += f[k];                                                      \
            r[others] = v;                                                     \
            others += !f[k];                                                   \
        }                                                                      \
    } while (0)

gpgpu_status gpgpu__compact_host_expr(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                      const void *in, size_t n, void *out, size_t *count,
                                      int partition, char why[GPGPU__EXPR_WHY])
{
    const size_t size = gpgpu__type(t)->size;
    const gpgpu__hexpr *e;
    GPGPU__TRY(lock_host_expr(ctx, pred, t, 1, why, &e));
    if (!e) {
        gpgpu__unlock(ctx);
        return GPGPU_ERROR_UNSUPPORTED;
    }
#ifdef COMPACT_AVX2
    const int avx2 = gpgpu__host_avx2();
#else
    const int avx2 = 0;
#endif
    unsigned char *f = malloc(n < CHUNK ? n + 1 : CHUNK);
    void *rest = partition && n ? malloc(n * size) : NULL;
    size_t kept = 0, others = 0;
    int ok = f && (rest || !partition || !n);
    for (size_t k0 = 0; ok && k0 < n; k0 += CHUNK) {
        const size_t len = n - k0 < CHUNK ? n - k0 : CHUNK;
        ok = gpgpu__hexpr_test(e, (const unsigned char *)in + k0 * size, k0, len, f);
        if (!ok)
            break;
        if (rest && size == 4)
            SPLIT(uint32_t);
        else if (rest)
            SPLIT(uint64_t);
        else if (size == 4)
            COMPACT(uint32_t);
        else
            COMPACT(uint64_t);
    }
    gpgpu__unlock(ctx);
    if (ok && others)
        memcpy((unsigned char *)out + kept * size, rest, others * size);
    free(f);
    free(rest);
    if (!ok)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    *count = kept;
    return GPGPU_SUCCESS;
}

/* ---- transform-reduce ----------------------------------------------------- */

/* A map reduced as it is made: parts of TR_PART elements on the library's
   threads, each mapped TR_PIECE at a time into a buffer in cache and
   reduced on its thread; the parts' results combined in order. The parts
   depend only on n, so the combining order (floats' bits) does too. */
enum { TR_PART = 1 << 16, TR_PIECE = 2048, TR_SMALL = 8192 };

typedef struct {
    const gpgpu__hexpr *e;
    gpgpu_type t;
    gpgpu_op op;
    const unsigned char *in;
    size_t n;
    unsigned char *partial; /* a result a part */
    unsigned char *ok;      /* 1 a part that had the memory */
} tr_job;

static void tr_part(void *arg, size_t g)
{
    tr_job *j = arg;
    const size_t size = gpgpu__type(j->t)->size;
    const size_t end = (g + 1) * TR_PART < j->n ? (g + 1) * TR_PART : j->n;
    _Alignas(64) unsigned char piece[TR_PIECE * 8];
    unsigned char acc[16]; /* the part's result so far, then a piece's */
    gpgpu__identity(j->t, j->op, acc);
    j->ok[g] = 1;
    for (size_t k0 = g * TR_PART; k0 < end; k0 += TR_PIECE) {
        const size_t len = end - k0 < TR_PIECE ? end - k0 : TR_PIECE;
        if (!gpgpu__hexpr_map(j->e, j->t, j->in + k0 * size, len, piece)) {
            j->ok[g] = 0;
            return;
        }
        if (k0 == g * TR_PART && !gpgpu__type(j->t)->is_float) { /* the first piece */
            gpgpu__host_reduce_seq(j->t, j->op, piece, len, acc);
        } else {
            gpgpu__host_reduce_seq(j->t, j->op, piece, len, acc + size);
            gpgpu__host_reduce_seq(j->t, j->op, acc, 2, acc);
        }
    }
    memcpy(j->partial + g * size, acc, size);
}

/* Integers everywhere (their sums wrap, their minimum and maximum do not
   depend on the order) and the fallback's floats (no kernel's order to
   follow) are reduced as they are mapped (tr_part); a CPU device's float
   map goes through a copy reduced as gpgpu_reduce reduces it, in the
   kernels' order, and so do exact float sums. */
gpgpu_status gpgpu__transform_reduce_host(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                          gpgpu_op op, const void *in, size_t n,
                                          void *result, char why[GPGPU__EXPR_WHY])
{
    const size_t size = gpgpu__type(t)->size;
    const int is_float = gpgpu__type(t)->is_float;
    const gpgpu__hexpr *e;
    GPGPU__TRY(lock_host_expr(ctx, map, t, 0, why, &e));
    if (e && (!is_float || (ctx->host && op != GPGPU_SUM_EXACT))) {
        const size_t nparts = n ? gpgpu__div_up(n, TR_PART) : 0;
        tr_job j = {e, t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in, n,
                    malloc(nparts * size + 1), malloc(nparts + 1)};
        int ok = j.partial && j.ok;
        if (ok && nparts > 1)
            gpgpu__parallel(nparts, tr_part, &j);
        else if (ok && nparts == 1)
            tr_part(&j, 0);
        for (size_t g = 0; ok && g < nparts; g++)
            ok = j.ok[g];
        gpgpu__unlock(ctx);
        if (ok && nparts == 1 && !is_float) /* integers: the part's result is the call's */
            memcpy(result, j.partial, size);
        else if (ok && nparts)
            gpgpu__host_reduce_seq(t, j.op, j.partial, nparts, result);
        else if (ok)
            gpgpu__identity(t, j.op, result);
        free(j.partial);
        free(j.ok);
        return ok ? GPGPU_SUCCESS
                  : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    /* a small map on the stack: malloc and free of 4 KiB cost a quarter
       of a 1024-element call */
    _Alignas(64) unsigned char small[TR_SMALL];
    void *mapped = !e ? NULL : n * size <= sizeof small ? small : malloc(n * size);
    int ok = mapped && gpgpu__hexpr_map(e, t, in, n, mapped);
    gpgpu__unlock(ctx);
    if (!ok) {
        if (mapped != small)
            free(mapped);
        return e ? gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory")
                 : GPGPU_ERROR_UNSUPPORTED;
    }
    gpgpu_status s = gpgpu_reduce(ctx, t, op, mapped, n, result); /* its routes, its bits */
    if (mapped != small)
        free(mapped);
    return s;
}

gpgpu_status gpgpu_transform_reduce(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                    gpgpu_op op, const void *in, size_t n, void *result)
{
    char m[EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_reduce(ctx, __func__, t, op));
    GPGPU__REQUIRE(ctx, map != NULL, __func__, "map is NULL; need an expression in x");
    GPGPU__REQUIRE(ctx, result != NULL, __func__, "result is NULL; need room for one element");
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, size, 1, size));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "map", map, m));
    char why[GPGPU__EXPR_WHY] = "";
    const gpgpu__expr_use use = gpgpu__type(t)->is_float ? GPGPU__EXPR_MAP_F : GPGPU__EXPR_MAP;
    if (op < GPGPU_OP_USER && gpgpu__host_expr_route(ctx, gpgpu__expr_weight(use, n))) {
        gpgpu_status s = gpgpu__transform_reduce_host(ctx, t, m, op, in, n, result, why);
        if (s != GPGPU_ERROR_UNSUPPORTED)
            return s;
    }
    if (ctx->host && op >= GPGPU_OP_USER)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_transform_reduce: user operators need an OpenCL device");
    if (ctx->host)
        return gpgpu__expr_refused(ctx, __func__, 0, why);
    return gpgpu__reduce_host_call(ctx, t, op, m, in, n, result);
}

gpgpu_status gpgpu_transform_reduce_buffer(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                           gpgpu_op op, cl_mem in, size_t in_offset, size_t n,
                                           cl_mem result, size_t result_offset,
                                           cl_uint num_wait, const cl_event *wait,
                                           cl_event *done)
{
    char m[EXPR_MAX + 1];
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_reduce(ctx, __func__, t, op));
    GPGPU__REQUIRE(ctx, map != NULL, __func__, "map is NULL; need an expression in x");
    GPGPU__TRY(gpgpu__expr_clean(ctx, "map", map, m));
    return gpgpu__reduce_buffer_call(ctx, __func__, t, op, m, in, in_offset, n, result,
                                     result_offset, num_wait, wait, done);
}

/* ---- select ----------------------------------------------------------------- */

typedef gpgpu__select_plan select_plan;

/* Tiles are the scan's size: large enough that the scan of their counts is
   a small job. */
gpgpu_status gpgpu__select_plan_get(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                    gpgpu__select_plan *p)
{
    char options[192], extra[EXPR_MAX + 32];
    const char *op_src;
    GPGPU__TRY(gpgpu__type_supported(ctx, GPGPU_U64)); /* the counts */
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, GPGPU_SUM, options, sizeof options, &op_src));
    p->wg = ctx->tune.wg;
    size_t items = ctx->tune.scan_tile / p->wg;
    items = items ? items : 1;
    p->tile = p->wg * items;
    p->parts = ctx->tune.chunked ? p->wg : 1;
    size_t used = strlen(options);
    snprintf(options + used, sizeof options - used, " -D SELECT_ITEMS=%zu%s%s", items,
             pred ? "" : " -D UNIQUE=1", ctx->tune.select_warps ? "" : " -D SELECT_WARPS=0");
    if (pred)
        snprintf(extra, sizeof extra, "#define PRED (%s)\n", pred);
    return gpgpu__program_get(ctx, "userop", pred ? extra : NULL, options, &p->prog);
}

size_t gpgpu__select_tiles(const gpgpu__select_plan *p, size_t n)
{
    return (n + p->tile - 1) / p->tile;
}

size_t gpgpu__select_parts(const gpgpu__select_plan *p, size_t n)
{
    return gpgpu__select_tiles(p, n) * p->parts;
}

gpgpu_status gpgpu__select_enqueue(gpgpu_context *ctx, const gpgpu__select_plan *p,
                                   gpgpu__select_kind kind, cl_mem in, cl_ulong in_off,
                                   cl_ulong n, cl_ulong first, cl_mem out, cl_ulong out_off,
                                   cl_mem count, cl_ulong count_off, cl_mem counts,
                                   const gpgpu__runs_out *runs)
{
    static const char *const scatter[] = {"select_scatter", "partition_scatter",
                                          "runs_scatter"};
    if (n == 0) {
        cl_ulong zero = 0;
        return gpgpu__fill(ctx, count, count_off * sizeof zero, sizeof zero, &zero, sizeof zero);
    }
    size_t tiles = gpgpu__select_tiles(p, n);
    GPGPU__TRY(gpgpu__run(ctx, p->prog, "select_count", tiles * p->wg, p->wg, GPGPU__ARG(in),
                          GPGPU__ARG(in_off), GPGPU__ARG(n), GPGPU__ARG(first),
                          GPGPU__ARG(counts), GPGPU__END));
    GPGPU__TRY(gpgpu__scan_enqueue(ctx, GPGPU_U64, GPGPU_SUM, GPGPU_INCLUSIVE, counts, 0, counts,
                                   0, tiles * p->parts, NULL, 0));
    if (kind == GPGPU__RUNS) {
        const cl_ulong parts = tiles * p->parts;
        GPGPU__TRY(gpgpu__run(ctx, p->prog, scatter[kind], tiles * p->wg, p->wg,
                              GPGPU__ARG(in), GPGPU__ARG(in_off), GPGPU__ARG(n),
                              GPGPU__ARG(first), GPGPU__ARG(counts), GPGPU__ARG(out),
                              GPGPU__ARG(out_off), GPGPU__ARG(count), GPGPU__ARG(count_off),
                              GPGPU__ARG(runs->lengths), GPGPU__ARG(runs->lengths_off),
                              GPGPU__ARG(runs->firsts), GPGPU__END));
        if (p->parts == 1) /* GPU layout: the scatter wrote the heads' positions */
            GPGPU__TRY(gpgpu__run(ctx, p->prog, "runs_lengths", tiles * p->wg, p->wg,
                                  GPGPU__ARG(counts), GPGPU__ARG(runs->lengths),
                                  GPGPU__ARG(runs->lengths_off), GPGPU__END));
        const size_t fix = (parts + p->wg - 1) / p->wg * p->wg;
        return gpgpu__run(ctx, p->prog, "runs_fixup", fix, p->wg, GPGPU__ARG(counts),
                          GPGPU__ARG(runs->firsts), GPGPU__ARG(parts), GPGPU__ARG(n),
                          GPGPU__ARG(count), GPGPU__ARG(count_off),
                          GPGPU__ARG(runs->lengths), GPGPU__ARG(runs->lengths_off),
                          GPGPU__END);
    }
    return gpgpu__run(ctx, p->prog, scatter[kind], tiles * p->wg, p->wg, GPGPU__ARG(in),
                      GPGPU__ARG(in_off), GPGPU__ARG(n), GPGPU__ARG(first), GPGPU__ARG(counts),
                      GPGPU__ARG(out), GPGPU__ARG(out_off), GPGPU__ARG(count),
                      GPGPU__ARG(count_off), GPGPU__END);
}

int gpgpu__overlap(size_t a, size_t an, size_t b, size_t bn)
{
    return an && bn && a < b + bn && b < a + an;
}

gpgpu_status gpgpu__select_pred_enqueue(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                       cl_mem in, size_t in_off, size_t n, cl_mem out,
                                       size_t out_off, cl_mem count, size_t count_off)
{
    gpgpu__select_plan p;
    cl_mem counts;
    GPGPU__TRY(gpgpu__select_plan_get(ctx, t, pred, &p));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, gpgpu__select_parts(&p, n) * sizeof(cl_ulong),
                              &counts));
    return gpgpu__select_enqueue(ctx, &p, GPGPU__SELECT, in, in_off, n, 0, out, out_off, count,
                                 count_off, counts, NULL);
}

gpgpu_status gpgpu_select_buffer(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                                 cl_mem in, size_t in_offset, size_t n, cl_mem out,
                                 size_t out_offset, cl_mem count, size_t count_offset,
                                 cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    char pred[EXPR_MAX + 1];
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__, "predicate is NULL; need an expression in x");
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__, "count is NULL; need a buffer for the count");
    GPGPU__REQUIRE(ctx, in != out || !gpgpu__overlap(in_offset, n, out_offset, n), __func__,
                   "in and out are one buffer and elements [%zu, +%zu) and [%zu, +%zu) "
                   "overlap; they must be apart", in_offset, n, out_offset, n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_select_buffer: no OpenCL device");
    const size_t size = gpgpu__type(t)->size;
    if (n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n, size));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "out", out, out_offset, n, size));
    }
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "count", count, count_offset, 1,
                                  sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu__select_plan p;
    cl_mem counts;
    gpgpu_status s = gpgpu__select_plan_get(ctx, t, pred, &p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__scratch(ctx, GPGPU__SLOT_AUX, gpgpu__select_parts(&p, n) * sizeof(cl_ulong), &counts);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__select_enqueue(ctx, &p, GPGPU__SELECT, in, in_offset, n, 0, out, out_offset,
                                  count, count_offset, counts, NULL);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu__compact_in_place(gpgpu_context *ctx, const gpgpu__select_plan *p,
                                     gpgpu__select_kind kind, size_t size, const void *in,
                                     size_t n, void *out, uint64_t *lengths, size_t *count)
{
    const size_t parts = gpgpu__select_parts(p, n);
    cl_mem vin = NULL, vout = NULL, aux, dst = NULL;
    size_t oin = 0, oout = 0, olen = 0;
    cl_ulong got = 0;
    gpgpu__runs_out runs = {NULL, NULL, 0};
    gpgpu_status s = gpgpu__scratch(ctx, GPGPU__SLOT_AUX, (parts + 1) * sizeof got, &aux);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, in, n * size, 0, &vin, &oin);
    if (s == GPGPU_SUCCESS && out != in)
        s = gpgpu__host_view(ctx, out, n * size, 1, &vout, &oout);
    dst = vout;
    if (s == GPGPU_SUCCESS && out == in)
        s = gpgpu__scratch(ctx, GPGPU__SLOT_OUT, n * size, &dst);
    if (s == GPGPU_SUCCESS && lengths)
        s = gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, parts * sizeof got, &runs.firsts);
    if (s == GPGPU_SUCCESS && lengths)
        s = gpgpu__host_view(ctx, lengths, n * sizeof *lengths, 1, &runs.lengths, &olen);
    runs.lengths_off = olen / sizeof *lengths;
    if (s == GPGPU_SUCCESS) {
        gpgpu__note_route(ctx, out == in ? "copy" : "zero-copy");
        s = gpgpu__select_enqueue(ctx, p, kind, vin, oin / size, n, 0, dst, oout / size, aux,
                                  parts, aux, lengths ? &runs : NULL);
    }
    /* blocking, after the kernels on the in-order queue: out is written */
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, aux, parts * sizeof got, sizeof got, &got);
    if (s == GPGPU_SUCCESS && out == in) /* partition: every element moved */
        s = gpgpu__read(ctx, dst, 0, (kind == GPGPU__PARTITION ? n : (size_t)got) * size, out);
    if (vin)
        clReleaseMemObject(vin);
    if (vout)
        clReleaseMemObject(vout);
    if (runs.lengths)
        clReleaseMemObject(runs.lengths);
    if (s == GPGPU_SUCCESS)
        *count = (size_t)got;
    return s;
}

/* Host memory in and out. Inputs larger than one device allocation go
   through in chunks; the predicate still sees each element's index in the
   whole input, and each chunk's kept elements follow the previous ones.
   out == in works: a chunk's output never passes its own end. */
static gpgpu_status select_host_api(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                    const void *in, size_t n, void *out, size_t *count)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t chunk = gpgpu__chunk_elems(ctx, size), len0 = n < chunk ? n : chunk;
    gpgpu__select_plan p;
    cl_mem src, dst, aux;
    GPGPU__TRY(gpgpu__select_plan_get(ctx, t, pred, &p));
    if (gpgpu__in_place(ctx, n * size))
        return gpgpu__compact_in_place(ctx, &p, GPGPU__SELECT, size, in, n, out, NULL, count);
    /* aux: the parts' counts, then the kept count after them */
    const size_t parts = gpgpu__select_parts(&p, len0);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, len0 * size, &src));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, len0 * size, &dst));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, (parts + 1) * sizeof(cl_ulong), &aux));
    size_t total = 0, first = 0;
    do {
        size_t len = n - first < chunk ? n - first : chunk;
        cl_ulong got;
        GPGPU__TRY(gpgpu__upload(ctx, src, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__select_enqueue(ctx, &p, GPGPU__SELECT, src, 0, len, first, dst, 0, aux,
                                         parts, aux, NULL));
        GPGPU__TRY(gpgpu__read(ctx, aux, parts * sizeof got, sizeof got, &got));
        GPGPU__TRY(gpgpu__download(ctx, dst, 0, (size_t)got * size, (char *)out + total * size,
                                   0));
        total += (size_t)got;
        first += len;
    } while (first < n);
    *count = total;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_select(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                          const void *in, size_t n, void *out, size_t *count)
{
    char pred[EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__, "predicate is NULL; need an expression in x");
    GPGPU__REQUIRE(ctx, count != NULL, __func__, "count is NULL; need somewhere to store it");
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, size, 1, size));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "out", out, n, size, 1, size));
    GPGPU__REQUIRE(ctx, in == out || !gpgpu__overlap((size_t)in, n * size, (size_t)out, n * size),
                   __func__, "in (%p) and out (%p) overlap for n = %zu; they must be the same "
                   "array or apart", in, out, n);
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    char why[GPGPU__EXPR_WHY] = "";
    if (gpgpu__host_expr_route(ctx, gpgpu__expr_weight(GPGPU__EXPR_SELECT, n))) {
        gpgpu_status s = gpgpu__compact_host_expr(ctx, t, pred, in, n, out, count, 0, why);
        if (s != GPGPU_ERROR_UNSUPPORTED)
            return s;
    }
    if (ctx->host)
        return gpgpu__expr_refused(ctx, __func__, 1, why);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_select",
                                select_host_api(ctx, t, pred, in, n, out, count));
}

/* ---- select --------------------------------------------------------------------------- */

gpgpu_status gpgpu_select_array(gpgpu_context *ctx, const char *predicate,
                                const gpgpu_array *in, gpgpu_array *out, size_t *count)
{
    char pred[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__,
                   "predicate is NULL");
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    /* Work items would overwrite elements that others have yet to read. */
    GPGPU__REQUIRE(ctx, out != in, __func__,
                   "out and in are the same array; they must differ (out != in)");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", in, out, 1, 0));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    if (ctx->host) {
        char why[GPGPU__EXPR_WHY] = "";
        gpgpu_status s = gpgpu__compact_host_expr(ctx, in->t, pred, in->host, in->n, out->host,
                                                  count, 0, why);
        return s != GPGPU_ERROR_UNSUPPORTED ? s : gpgpu__expr_refused(ctx, __func__, 1, why);
    }
    cl_mem kept;
    cl_ulong got = 0;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, sizeof got, &kept);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__select_pred_enqueue(ctx, in->t, pred, in->buf, 0, in->n, out->buf, 0, kept, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, kept, 0, sizeof got, &got);
    if (s == GPGPU_SUCCESS)
        *count = (size_t)got;
    return gpgpu__array_end(ctx, __func__, s);
}
