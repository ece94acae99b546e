/* host_expr.c - user expressions (a map in x, a predicate in x and i)
   evaluated on the host, for the part of OpenCL C whose results are
   exact: the same bits as a kernel that compiles the expression on a CPU
   device, so that a call gives the same answer whichever way it runs.

   Taken: integer and floating literals, x (the element, of the call's
   type) and i (a predicate's index, ulong), the constants below, casts to
   int, uint, long, ulong, float and double, the unary operators - + ! ~,
   the binary operators * / % + - << >> < <= > >= == != & ^ | && ||, the
   conditional ?:, parentheses, and the functions fabs, floor, ceil,
   trunc, fma, isnan, isinf, isfinite and signbit (floating arguments),
   abs, min and max (integer arguments of one type). Types follow OpenCL
   C: literals take the type their value and suffix give them (1 is int,
   1.0 double, 1.0f float), operands meet in the usual arithmetic
   conversions, comparisons and logical operators give int, shift counts
   are taken modulo the width, abs gives the unsigned type. Integer
   arithmetic wraps; what OpenCL leaves undefined (division by zero, a
   float out of an integer's range) gives some value, never a trap.

   Refused (NULL, with the reason): everything else, so that the call
   compiles the kernel instead: other functions (sqrt, exp, sin: their
   bits are the device library's), vector types, other names, and a
   floating product that is an operand of an addition or subtraction,
   which the kernel compiler may contract into one fused multiply-add
   (FP_CONTRACT is on by default in OpenCL C). The host fallback, with no
   kernel to agree with, compiles loose: the C library's functions
   (functions[], loose) and unfused products are taken too.

   An expression becomes a list of instructions over registers of BLOCK
   values each; a call runs the list once a block, each instruction a
   loop the compiler vectorizes. */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

enum { BLOCK = 256, MAX_REGS = 64 };

/* Value types, in the order of gpgpu_type. */
typedef enum { V_I32 = GPGPU_I32, V_U32 = GPGPU_U32, V_F32 = GPGPU_F32,
               V_I64 = GPGPU_I64, V_U64 = GPGPU_U64, V_F64 = GPGPU_F64 } vt;

static int is_float(vt t) { return t == V_F32 || t == V_F64; }
static int is_signed(vt t) { return t == V_I32 || t == V_I64; }
static int width(vt t) { return t == V_I64 || t == V_U64 || t == V_F64 ? 64 : 32; }

typedef enum {
    OP_INDEX, OP_CVT, OP_NEG, OP_BNOT, OP_TRUTH, OP_LNOT,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM, OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_COND,
    OP_FABS, OP_FLOOR, OP_CEIL, OP_TRUNC, OP_FMA, OP_ISNAN, OP_ISINF, OP_ISFINITE,
    OP_SIGNBIT, OP_ABS, OP_MIN, OP_MAX,
    /* the fallback's alone (LOOSE_FUNCTIONS) */
    OP_SQRT, OP_CBRT, OP_EXP, OP_EXP2, OP_LOG, OP_LOG2, OP_LOG10, OP_SIN, OP_COS, OP_TAN,
    OP_ASIN, OP_ACOS, OP_ATAN, OP_SINH, OP_COSH, OP_TANH, OP_ROUND, OP_POW, OP_ATAN2,
    OP_HYPOT, OP_FMIN, OP_FMAX, OP_FMOD, OP_COPYSIGN
} opcode;

typedef struct {
    unsigned char op, t, from; /* t: the operands' type; from: OP_CVT's source */
    unsigned char dst, a, b, c;
} ins;

typedef union {
    int64_t i;
    uint64_t u;
    double d;
    float f;
} scalar;

struct gpgpu__hexpr {
    vt xt;                      /* x's type */
    int nregs, nins, nconst;
    int x, i;                   /* registers of x and i (i: -1 when unused) */
    int result;                 /* the expression's register */
    vt result_t;
    int result_written;         /* an instruction writes it (not x, not a constant) */
    ins code[2 * MAX_REGS];
    vt rtype[MAX_REGS];
    int const_reg[MAX_REGS];
    scalar const_val[MAX_REGS];
};

/* ---- parsing -------------------------------------------------------------- */

typedef struct {
    int reg;
    vt t;
    int fmul;   /* a floating product (or its negation): not an addend */
} val;

typedef struct {
    const char *s;
    struct gpgpu__hexpr *e;
    int with_i;
    int loose;  /* no kernel to agree with (the fallback) */
    char *why;
    size_t why_size;
    int failed;
} parser;

static void refuse(parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    if (p->why && p->why_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->why, p->why_size, fmt, ap);
        va_end(ap);
    }
}

static void blanks(parser *p)
{
    while (*p->s == ' ')
        p->s++;
}

/* Consumes tok if it comes next (and, for an operator, is not the start
   of a longer one that shares its first character). */
static int accept(parser *p, const char *tok)
{
    blanks(p);
    size_t l = strlen(tok);
    if (strncmp(p->s, tok, l) != 0)
        return 0;
    char next = p->s[l];
    if (l == 1 && strchr("<>&|=", tok[0]) && (next == tok[0] || next == '='))
        return 0;
    if (l == 1 && strchr("!*/%+-^~", tok[0]) && next == '=')
        return 0;
    if (l == 1 && (tok[0] == '+' || tok[0] == '-') && next == tok[0])
        return 0; /* ++ and -- */
    p->s += l;
    return 1;
}

static int new_reg(parser *p, vt t)
{
    if (p->e->nregs >= MAX_REGS) {
        refuse(p, "more than %d steps", MAX_REGS);
        return 0;
    }
    p->e->rtype[p->e->nregs] = t;
    return p->e->nregs++;
}

static val emit(parser *p, opcode op, vt t, vt rt, int a, int b, int c)
{
    val v = {0, rt, 0};
    if (p->failed)
        return v;
    if (p->e->nins >= 2 * MAX_REGS) {
        refuse(p, "more than %d steps", MAX_REGS);
        return v;
    }
    v.reg = new_reg(p, rt);
    p->e->code[p->e->nins++] = (ins){(unsigned char)op, (unsigned char)t, 0,
                                     (unsigned char)v.reg, (unsigned char)a,
                                     (unsigned char)b, (unsigned char)c};
    return v;
}

static val constant(parser *p, vt t, scalar k)
{
    val v = {0, t, 0};
    if (p->failed)
        return v;
    v.reg = new_reg(p, t);
    p->e->const_reg[p->e->nconst] = v.reg;
    p->e->const_val[p->e->nconst++] = k;
    return v;
}

static void cvt_block(vt to, vt from, void *restrict dst, const void *restrict src);

static val convert(parser *p, val v, vt to)
{
    if (p->failed || v.t == to)
        return v;
    for (int c = 0; c < p->e->nconst; c++)
        if (p->e->const_reg[c] == v.reg) {
            /* a constant: converted now, not once a block (as cvt_block
               converts, so with the same rules) */
            _Alignas(64) unsigned char from[BLOCK * 8] = {0}, conv[BLOCK * 8];
            memcpy(from, &p->e->const_val[c], 8);
            cvt_block(to, v.t, conv, from);
            scalar k = {0};
            memcpy(&k, conv, to == V_I32 || to == V_U32 || to == V_F32 ? 4 : 8);
            return constant(p, to, k);
        }
    val r = emit(p, OP_CVT, to, to, v.reg, 0, 0);
    if (!p->failed)
        p->e->code[p->e->nins - 1].from = (unsigned char)v.t;
    return r;
}

static val truth(parser *p, val v)
{
    return emit(p, OP_TRUTH, v.t, V_I32, v.reg, 0, 0);
}

/* The usual arithmetic conversions (every type here ranks at least int). */
static vt common(vt a, vt b)
{
    if (a == V_F64 || b == V_F64)
        return V_F64;
    if (a == V_F32 || b == V_F32)
        return V_F32;
    if (a == b)
        return a;
    if (is_signed(a) == is_signed(b))
        return width(a) >= width(b) ? a : b;
    vt u = is_signed(a) ? b : a, s = is_signed(a) ? a : b;
    return width(u) >= width(s) ? u : s;
}

static val conditional(parser *p);

static const struct {
    const char *name;
    vt t;
} type_names[] = {{"int", V_I32}, {"uint", V_U32}, {"long", V_I64},
                  {"ulong", V_U64}, {"float", V_F32}, {"double", V_F64}};

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* A name at p->s into buf (empty when none). */
static size_t peek_name(const parser *p, char *buf, size_t size)
{
    size_t l = 0;
    const char *s = p->s;
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return buf[0] = '\0', 0;
    while (ident_char(s[l]) && l + 1 < size) {
        buf[l] = s[l];
        l++;
    }
    buf[l] = '\0';
    return ident_char(s[l]) ? 0 : l;
}

static val number(parser *p)
{
    val bad = {0, V_I32, 0};
    const char *s = p->s;
    size_t l = 0;
    int is_fp = 0, hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex)
        l = 2;
    while (ident_char(s[l]) || s[l] == '.' ||
           ((s[l] == '+' || s[l] == '-') && !hex && (s[l - 1] == 'e' || s[l - 1] == 'E')))
        l++;
    char text[64];
    if (l >= sizeof text) {
        refuse(p, "a literal of %zu characters", l);
        return bad;
    }
    memcpy(text, s, l);
    text[l] = '\0';
    p->s += l;
    if (!hex && strpbrk(text, ".eE"))
        is_fp = 1;
    if (is_fp) {
        /* strtod follows the locale's decimal point: only where it is '.' */
        const struct lconv *lc = localeconv();
        if (!lc || !lc->decimal_point || strcmp(lc->decimal_point, ".") != 0) {
            refuse(p, "floating literals in a locale whose decimal point is not '.'");
            return bad;
        }
        int single = text[l - 1] == 'f' || text[l - 1] == 'F';
        if (single)
            text[l - 1] = '\0';
        char *end;
        scalar k;
        if (single)
            k.f = strtof(text, &end);
        else
            k.d = strtod(text, &end);
        if (*end != '\0' || end == text) {
            refuse(p, "the literal \"%s\"", text);
            return bad;
        }
        return constant(p, single ? V_F32 : V_F64, k);
    }
    /* integers: digits, then u, l, ul or lu in any case */
    size_t d = 0;
    while (ident_char(text[d]) && !(d >= (hex ? 2u : 1u) && strchr("uUlL", text[d])))
        d++;
    int u = 0, lg = 0;
    for (size_t j = d; j < l; j++) {
        if ((text[j] == 'u' || text[j] == 'U') && !u)
            u = 1;
        else if ((text[j] == 'l' || text[j] == 'L') && !lg)
            lg = 1;
        else {
            refuse(p, "the literal \"%s\"", text);
            return bad;
        }
    }
    uint64_t v = 0;
    int base = hex ? 16 : text[0] == '0' ? 8 : 10;
    for (size_t j = hex ? 2 : 0; j < d; j++) {
        char c = text[j];
        int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        if (digit >= base || v > (UINT64_MAX - (uint64_t)digit) / (uint64_t)base) {
            refuse(p, "the literal \"%s\"", text);
            return bad;
        }
        v = v * (uint64_t)base + (uint64_t)digit;
    }
    if (d == (hex ? 2u : 0u)) {
        refuse(p, "the literal \"%s\"", text);
        return bad;
    }
    /* C99 6.4.4.1 with OpenCL's 64-bit long: the first type that holds v */
    static const vt dec[] = {V_I32, V_I64}, other[] = {V_I32, V_U32, V_I64, V_U64},
                    dec_u[] = {V_U32, V_U64}, dec_l[] = {V_I64}, oth_l[] = {V_I64, V_U64},
                    ul[] = {V_U64};
    const vt *list;
    size_t nl;
    if (u && lg)
        list = ul, nl = 1;
    else if (u)
        list = dec_u, nl = 2;
    else if (lg)
        list = base == 10 ? dec_l : oth_l, nl = base == 10 ? 1 : 2;
    else
        list = base == 10 ? dec : other, nl = base == 10 ? 2 : 4;
    for (size_t j = 0; j < nl; j++) {
        vt t = list[j];
        uint64_t max = t == V_I32 ? INT32_MAX : t == V_U32 ? UINT32_MAX
                       : t == V_I64 ? (uint64_t)INT64_MAX : UINT64_MAX;
        if (v <= max) {
            scalar k;
            k.u = v;
            return constant(p, t, k);
        }
    }
    refuse(p, "the literal \"%s\" (too large)", text);
    return bad;
}

/* Named constants, as OpenCL C defines them. */
static const struct {
    const char *name;
    vt t;
    scalar k;
} constants[] = {
    {"INFINITY", V_F32, {.f = INFINITY}},         {"HUGE_VALF", V_F32, {.f = INFINITY}},
    {"NAN", V_F32, {.f = NAN}},                   {"FLT_MAX", V_F32, {.f = 0x1.fffffep127f}},
    {"MAXFLOAT", V_F32, {.f = 0x1.fffffep127f}},  {"FLT_MIN", V_F32, {.f = 0x1p-126f}},
    {"FLT_EPSILON", V_F32, {.f = 0x1p-23f}},      {"DBL_MAX", V_F64, {.d = 0x1.fffffffffffffp1023}},
    {"DBL_MIN", V_F64, {.d = 0x1p-1022}},         {"DBL_EPSILON", V_F64, {.d = 0x1p-52}},
    {"INT_MAX", V_I32, {.i = INT32_MAX}},         {"INT_MIN", V_I32, {.i = INT32_MIN}},
    {"UINT_MAX", V_U32, {.u = UINT32_MAX}},       {"LONG_MAX", V_I64, {.i = INT64_MAX}},
    {"LONG_MIN", V_I64, {.i = INT64_MIN}},        {"ULONG_MAX", V_U64, {.u = UINT64_MAX}},
    {"true", V_I32, {.i = 1}},                    {"false", V_I32, {.i = 0}},
};

static int named_constant(parser *p, const char *name, val *out)
{
    for (size_t j = 0; j < sizeof constants / sizeof constants[0]; j++)
        if (!strcmp(name, constants[j].name)) {
            *out = constant(p, constants[j].t, constants[j].k);
            return 1;
        }
    return 0;
}

static const struct {
    const char *name;
    opcode op;
    int args;
    int floats; /* 1: floating arguments; 0: integer ones */
    int loose;  /* 1: only where no kernel must agree (the fallback): the
                   device's library need not round as the C library does */
} functions[] = {
    {"fabs", OP_FABS, 1, 1, 0},       {"floor", OP_FLOOR, 1, 1, 0},
    {"ceil", OP_CEIL, 1, 1, 0},       {"trunc", OP_TRUNC, 1, 1, 0},
    {"fma", OP_FMA, 3, 1, 0},         {"isnan", OP_ISNAN, 1, 1, 0},
    {"isinf", OP_ISINF, 1, 1, 0},     {"isfinite", OP_ISFINITE, 1, 1, 0},
    {"signbit", OP_SIGNBIT, 1, 1, 0}, {"abs", OP_ABS, 1, 0, 0},
    {"min", OP_MIN, 2, 0, 0},         {"max", OP_MAX, 2, 0, 0},
    {"sqrt", OP_SQRT, 1, 1, 1},       {"cbrt", OP_CBRT, 1, 1, 1},
    {"exp", OP_EXP, 1, 1, 1},         {"exp2", OP_EXP2, 1, 1, 1},
    {"log", OP_LOG, 1, 1, 1},         {"log2", OP_LOG2, 1, 1, 1},
    {"log10", OP_LOG10, 1, 1, 1},     {"sin", OP_SIN, 1, 1, 1},
    {"cos", OP_COS, 1, 1, 1},         {"tan", OP_TAN, 1, 1, 1},
    {"asin", OP_ASIN, 1, 1, 1},       {"acos", OP_ACOS, 1, 1, 1},
    {"atan", OP_ATAN, 1, 1, 1},       {"sinh", OP_SINH, 1, 1, 1},
    {"cosh", OP_COSH, 1, 1, 1},       {"tanh", OP_TANH, 1, 1, 1},
    {"round", OP_ROUND, 1, 1, 1},     {"pow", OP_POW, 2, 1, 1},
    {"atan2", OP_ATAN2, 2, 1, 1},     {"hypot", OP_HYPOT, 2, 1, 1},
    {"fmin", OP_FMIN, 2, 1, 1},       {"fmax", OP_FMAX, 2, 1, 1},
    {"fmod", OP_FMOD, 2, 1, 1},       {"copysign", OP_COPYSIGN, 2, 1, 1}};

static val call(parser *p, const char *name)
{
    val bad = {0, V_I32, 0}, arg[3] = {{0, V_I32, 0}, {0, V_I32, 0}, {0, V_I32, 0}};
    size_t f = 0, nf = sizeof functions / sizeof *functions;
    while (f < nf && strcmp(functions[f].name, name) != 0)
        f++;
    if (f == nf || (functions[f].loose && !p->loose)) {
        refuse(p, "the function %s", name);
        return bad;
    }
    int n = 0;
    if (!accept(p, ")")) {
        do {
            if (n == 3) {
                refuse(p, "%s with more than %d arguments", name, functions[f].args);
                return bad;
            }
            arg[n++] = conditional(p);
        } while (!p->failed && accept(p, ","));
        if (!p->failed && !accept(p, ")"))
            refuse(p, "text after %s's arguments", name);
    }
    if (p->failed)
        return bad;
    if (n != functions[f].args) {
        refuse(p, "%s with %d arguments", name, n);
        return bad;
    }
    /* Arguments of exactly one type the function takes (as the kernel's
       overloads would resolve them; anything looser is left to the
       compiler). */
    for (int j = 0; j < n; j++)
        if (is_float(arg[j].t) != functions[f].floats || arg[j].t != arg[0].t) {
            refuse(p, "%s's arguments of these types", name);
            return bad;
        }
    opcode op = functions[f].op;
    vt t = arg[0].t, rt = t;
    if (op == OP_ISNAN || op == OP_ISINF || op == OP_ISFINITE || op == OP_SIGNBIT)
        rt = V_I32;
    else if (op == OP_ABS)
        rt = t == V_I32 ? V_U32 : t == V_I64 ? V_U64 : t;
    return emit(p, op, t, rt, arg[0].reg, n > 1 ? arg[1].reg : 0, n > 2 ? arg[2].reg : 0);
}

static val primary(parser *p)
{
    val bad = {0, V_I32, 0};
    blanks(p);
    char c = *p->s;
    if ((c >= '0' && c <= '9') || (c == '.' && p->s[1] >= '0' && p->s[1] <= '9'))
        return number(p);
    if (accept(p, "(")) {
        val v = conditional(p);
        if (!p->failed && !accept(p, ")"))
            refuse(p, "text before a ')'");
        return v;
    }
    char name[32];
    size_t l = peek_name(p, name, sizeof name);
    if (l == 0) {
        refuse(p, *p->s ? "\"%.12s\"" : "an expression that ends early", p->s);
        return bad;
    }
    p->s += l;
    if (!strcmp(name, "x"))
        return (val){p->e->x, p->e->xt, 0};
    if (!strcmp(name, "i") && p->with_i) {
        if (p->e->i < 0) {
            p->e->i = new_reg(p, V_U64);
            if (!p->failed)
                p->e->code[p->e->nins++] = (ins){OP_INDEX, V_U64, 0,
                                                 (unsigned char)p->e->i, 0, 0, 0};
        }
        return (val){p->e->i, V_U64, 0};
    }
    val v;
    if (named_constant(p, name, &v))
        return v;
    if (accept(p, "("))
        return call(p, name);
    refuse(p, "the name %s", name);
    return bad;
}

/* A cast's type name after '(' at p->s, or -1. */
static int cast_type(parser *p)
{
    const char *save = p->s;
    blanks(p);
    char name[16];
    size_t l = peek_name(p, name, sizeof name);
    for (size_t j = 0; l && j < sizeof type_names / sizeof *type_names; j++)
        if (!strcmp(name, type_names[j].name)) {
            p->s += l;
            if (accept(p, ")"))
                return (int)type_names[j].t;
            break;
        }
    p->s = save;
    return -1;
}

static val unary(parser *p)
{
    blanks(p);
    if (accept(p, "-")) {
        val v = unary(p);
        val r = emit(p, OP_NEG, v.t, v.t, v.reg, 0, 0);
        r.fmul = v.fmul;
        return r;
    }
    if (accept(p, "+"))
        return unary(p);
    if (accept(p, "!")) {
        val v = unary(p);
        return emit(p, OP_LNOT, v.t, V_I32, v.reg, 0, 0);
    }
    if (accept(p, "~")) {
        val v = unary(p);
        if (is_float(v.t))
            refuse(p, "'~' on a floating value");
        return emit(p, OP_BNOT, v.t, v.t, v.reg, 0, 0);
    }
    if (*p->s == '(') {
        p->s++;
        int t = cast_type(p);
        if (t >= 0)
            return convert(p, unary(p), (vt)t);
        p->s--;
    }
    return primary(p);
}

/* Binary operator levels, lowest first. */
static const struct {
    const char *tok[4];
    opcode op[4];
} levels[] = {
    {{"|"}, {OP_OR}},
    {{"^"}, {OP_XOR}},
    {{"&"}, {OP_AND}},
    {{"==", "!="}, {OP_EQ, OP_NE}},
    {{"<=", ">=", "<", ">"}, {OP_LE, OP_GE, OP_LT, OP_GT}},
    {{"<<", ">>"}, {OP_SHL, OP_SHR}},
    {{"+", "-"}, {OP_ADD, OP_SUB}},
    {{"*", "/", "%"}, {OP_MUL, OP_DIV, OP_REM}},
};
enum { LEVELS = sizeof levels / sizeof *levels };

static val binary(parser *p, int level)
{
    if (level == LEVELS)
        return unary(p);
    val a = binary(p, level + 1);
    for (;;) {
        int k = 0;
        while (k < 4 && levels[level].tok[k] && !accept(p, levels[level].tok[k]))
            k++;
        if (p->failed || k == 4 || !levels[level].tok[k])
            return a;
        opcode op = levels[level].op[k];
        val b = binary(p, level + 1);
        if (p->failed)
            return a;
        int int_only = op == OP_REM || op == OP_SHL || op == OP_SHR || op == OP_AND ||
                       op == OP_OR || op == OP_XOR;
        if (int_only && (is_float(a.t) || is_float(b.t))) {
            refuse(p, "'%s' on a floating value", levels[level].tok[k]);
            return a;
        }
        if ((op == OP_ADD || op == OP_SUB) && (a.fmul || b.fmul) && !p->loose) {
            refuse(p, "a floating product added or subtracted (the kernel may fuse them)");
            return a;
        }
        if (op == OP_SHL || op == OP_SHR) {
            b = convert(p, b, V_U64);
            a = emit(p, op, a.t, a.t, a.reg, b.reg, 0);
            continue;
        }
        vt t = common(a.t, b.t);
        a = convert(p, a, t);
        b = convert(p, b, t);
        int cmp = op >= OP_LT && op <= OP_NE;
        a = emit(p, op, t, cmp ? V_I32 : t, a.reg, b.reg, 0);
        a.fmul = op == OP_MUL && is_float(t);
    }
}

static val logical_and(parser *p)
{
    val a = binary(p, 0);
    while (!p->failed && accept(p, "&&")) {
        val b = binary(p, 0);
        a = emit(p, OP_AND, V_I32, V_I32, truth(p, a).reg, truth(p, b).reg, 0);
    }
    return a;
}

static val logical_or(parser *p)
{
    val a = logical_and(p);
    while (!p->failed && accept(p, "||")) {
        val b = logical_and(p);
        a = emit(p, OP_OR, V_I32, V_I32, truth(p, a).reg, truth(p, b).reg, 0);
    }
    return a;
}

static val conditional(parser *p)
{
    val c = logical_or(p);
    if (p->failed || !accept(p, "?"))
        return c;
    val a = conditional(p);
    if (!p->failed && !accept(p, ":"))
        refuse(p, "a '?' without its ':'");
    val b = conditional(p);
    if (p->failed)
        return c;
    vt t = common(a.t, b.t);
    int cr = truth(p, c).reg;
    a = convert(p, a, t);
    b = convert(p, b, t);
    return emit(p, OP_COND, t, t, a.reg, b.reg, cr);
}

gpgpu__hexpr *gpgpu__hexpr_compile(const char *expr, gpgpu_type t, int with_i, int loose,
                                   char *why, size_t why_size)
{
    struct gpgpu__hexpr *e = calloc(1, sizeof *e);
    if (!e) {
        if (why && why_size)
            snprintf(why, why_size, "no memory");
        return NULL;
    }
    e->xt = (vt)t;
    e->i = -1;
    e->nregs = 1; /* register 0: x */
    e->x = 0;
    e->rtype[0] = e->xt;
    parser p = {expr, e, with_i, loose, why, why_size, 0};
    val v = conditional(&p);
    blanks(&p);
    if (!p.failed && *p.s)
        refuse(&p, "\"%.12s\"", p.s);
    if (p.failed) {
        free(e);
        return NULL;
    }
    e->result = v.reg;
    e->result_t = v.t;
    for (int j = 0; j < e->nins; j++)
        e->result_written |= e->code[j].dst == e->result;
    return e;
}

void gpgpu__hexpr_free(gpgpu__hexpr *e)
{
    free(e);
}

/* ---- evaluation ----------------------------------------------------------- */

/* Integer conversions of floats: in range as C converts; NaN and values
   out of range (undefined in OpenCL C and in C) to the type's minimum, as
   x86's conversion instructions give, or 0 for unsigned types. */
#define F_TO_I(T, MINV, LO, HI, v) ((v) > (LO) && (v) < (HI) ? (T)(v) : (T)(MINV))

static void cvt_block(vt to, vt from, void *restrict dst, const void *restrict src)
{
    if (to == from) {
        memcpy(dst, src, (size_t)BLOCK * (width(to) / 8));
        return;
    }
#define CVT_FROM(TO, CONV)                                                       \
    do {                                                                         \
        TO *d = dst;                                                             \
        switch (from) {                                                          \
        case V_I32: { const int32_t *s = src; for (int k = 0; k < BLOCK; k++) d[k] = CONV(TO, s[k]); } break; \
        case V_U32: { const uint32_t *s = src; for (int k = 0; k < BLOCK; k++) d[k] = CONV(TO, s[k]); } break; \
        case V_I64: { const int64_t *s = src; for (int k = 0; k < BLOCK; k++) d[k] = CONV(TO, s[k]); } break; \
        case V_U64: { const uint64_t *s = src; for (int k = 0; k < BLOCK; k++) d[k] = CONV(TO, s[k]); } break; \
        case V_F32: { const float *s = src; for (int k = 0; k < BLOCK; k++) d[k] = CONV##_F(TO, s[k]); } break; \
        case V_F64: { const double *s = src; for (int k = 0; k < BLOCK; k++) d[k] = CONV##_F(TO, s[k]); } break; \
        }                                                                        \
    } while (0)
#define PLAIN(TO, v) ((TO)(v))
#define PLAIN_F(TO, v) ((TO)(v))
#define TO_I32(TO, v) ((TO)(uint32_t)(v))
#define TO_I32_F(TO, v) F_TO_I(TO, INT32_MIN, -2147483649.0, 2147483648.0, v)
#define TO_U32(TO, v) ((TO)(v))
#define TO_U32_F(TO, v) F_TO_I(TO, 0, -1.0, 4294967296.0, v)
#define TO_I64(TO, v) ((TO)(uint64_t)(v))
#define TO_I64_F(TO, v) F_TO_I(TO, INT64_MIN, -9223372036854775808.0, 9223372036854775808.0, v)
#define TO_U64(TO, v) ((TO)(v))
#define TO_U64_F(TO, v) F_TO_I(TO, 0, -1.0, 18446744073709551616.0, v)
    switch (to) {
    case V_I32: CVT_FROM(int32_t, TO_I32); break;
    case V_U32: CVT_FROM(uint32_t, TO_U32); break;
    case V_I64: CVT_FROM(int64_t, TO_I64); break;
    case V_U64: CVT_FROM(uint64_t, TO_U64); break;
    case V_F32: CVT_FROM(float, PLAIN); break;
    case V_F64: CVT_FROM(double, PLAIN); break;
    }
#undef CVT_FROM
}

/* Loops over a block for the operators every type has. */
#define COMMON_OPS(T, U)                                                         \
    case OP_TRUTH: for (int k = 0; k < BLOCK; k++) di[k] = a[k] != 0; break;      \
    case OP_LNOT: for (int k = 0; k < BLOCK; k++) di[k] = a[k] == 0; break;       \
    case OP_ADD: for (int k = 0; k < BLOCK; k++) d[k] = (T)((U)a[k] + (U)b[k]); break; \
    case OP_SUB: for (int k = 0; k < BLOCK; k++) d[k] = (T)((U)a[k] - (U)b[k]); break; \
    case OP_MUL: for (int k = 0; k < BLOCK; k++) d[k] = (T)((U)a[k] * (U)b[k]); break; \
    case OP_LT: for (int k = 0; k < BLOCK; k++) di[k] = a[k] < b[k]; break;        \
    case OP_LE: for (int k = 0; k < BLOCK; k++) di[k] = a[k] <= b[k]; break;       \
    case OP_GT: for (int k = 0; k < BLOCK; k++) di[k] = a[k] > b[k]; break;        \
    case OP_GE: for (int k = 0; k < BLOCK; k++) di[k] = a[k] >= b[k]; break;       \
    case OP_EQ: for (int k = 0; k < BLOCK; k++) di[k] = a[k] == b[k]; break;       \
    case OP_NE: for (int k = 0; k < BLOCK; k++) di[k] = a[k] != b[k]; break;       \
    case OP_COND: for (int k = 0; k < BLOCK; k++) d[k] = ci[k] ? a[k] : b[k]; break;

/* The integer type T (U its unsigned twin, BITS wide, MIN its minimum). */
/* restrict parameters: the loops vectorize with no test for overlap (out
   is the one destination, as whichever type the operator writes; a and b
   may be one register, only read). */
#define INT_EVAL(NAME, T, U, BITS, MIN, ATTR)                                    \
    ATTR static void NAME(opcode op, void *restrict out, const T *restrict a,         \
                     const T *restrict b, const uint64_t *restrict sh,           \
                     const int32_t *restrict ci)                                 \
    {                                                                            \
        T *const d = out;                                                        \
        int32_t *const di = out;                                                 \
        U *const du = out;                                                       \
        switch (op) {                                                            \
        COMMON_OPS(T, U)                                                         \
        case OP_NEG: for (int k = 0; k < BLOCK; k++) d[k] = (T)((U)0 - (U)a[k]); break; \
        case OP_BNOT: for (int k = 0; k < BLOCK; k++) d[k] = (T)~(U)a[k]; break;  \
        case OP_DIV:                                                             \
            for (int k = 0; k < BLOCK; k++)                                      \
                d[k] = b[k] == 0 ? 0 : (MIN != 0 && a[k] == (T)MIN && b[k] == (T)-1) ? a[k] \
                                                                       : a[k] / b[k]; \
            break;                                                               \
        case OP_REM:                                                             \
            for (int k = 0; k < BLOCK; k++)                                      \
                d[k] = b[k] == 0 || (MIN != 0 && b[k] == (T)-1) ? 0 : a[k] % b[k]; \
            break;                                                               \
        case OP_SHL: for (int k = 0; k < BLOCK; k++) d[k] = (T)((U)a[k] << (sh[k] & (BITS - 1))); break; \
        case OP_SHR: for (int k = 0; k < BLOCK; k++) d[k] = a[k] >> (sh[k] & (BITS - 1)); break; \
        case OP_AND: for (int k = 0; k < BLOCK; k++) d[k] = a[k] & b[k]; break;   \
        case OP_OR: for (int k = 0; k < BLOCK; k++) d[k] = a[k] | b[k]; break;    \
        case OP_XOR: for (int k = 0; k < BLOCK; k++) d[k] = a[k] ^ b[k]; break;   \
        case OP_ABS: {                                                           \
            for (int k = 0; k < BLOCK; k++)                                      \
                du[k] = MIN != 0 && (U)a[k] >> (BITS - 1) ? (U)0 - (U)a[k] : (U)a[k]; \
            break;                                                               \
        }                                                                        \
        case OP_MIN: for (int k = 0; k < BLOCK; k++) d[k] = b[k] < a[k] ? b[k] : a[k]; break; \
        case OP_MAX: for (int k = 0; k < BLOCK; k++) d[k] = a[k] < b[k] ? b[k] : a[k]; break; \
        default: break;                                                          \
        }                                                                        \
    }
#define INT_EVALS(SUF, ATTR)                                                     \
    INT_EVAL(eval_i32##SUF, int32_t, uint32_t, 32, INT32_MIN, ATTR)             \
    INT_EVAL(eval_u32##SUF, uint32_t, uint32_t, 32, 0, ATTR)                    \
    INT_EVAL(eval_i64##SUF, int64_t, uint64_t, 64, INT64_MIN, ATTR)             \
    INT_EVAL(eval_u64##SUF, uint64_t, uint64_t, 64, 0, ATTR)

#define MATH1(OP, FN) case OP: for (int k = 0; k < BLOCK; k++) d[k] = FN(a[k]); break;
#define MATH2(OP, FN) case OP: for (int k = 0; k < BLOCK; k++) d[k] = FN(a[k], b[k]); break;

/* The floating type T; F the suffix of its <math.h> functions. */
#define FLOAT_EVAL(NAME, T, F, ATTR)                                             \
    ATTR static void NAME(opcode op, void *restrict out, const T *restrict a,         \
                     const T *restrict b, const T *restrict c,                   \
                     const int32_t *restrict ci)                                 \
    {                                                                            \
        T *const d = out;                                                        \
        int32_t *const di = out;                                                 \
        switch (op) {                                                            \
        COMMON_OPS(T, T)                                                         \
        case OP_NEG: for (int k = 0; k < BLOCK; k++) d[k] = -a[k]; break;        \
        case OP_DIV: for (int k = 0; k < BLOCK; k++) d[k] = a[k] / b[k]; break;   \
        case OP_FABS: for (int k = 0; k < BLOCK; k++) d[k] = fabs##F(a[k]); break; \
        case OP_FLOOR: for (int k = 0; k < BLOCK; k++) d[k] = floor##F(a[k]); break; \
        case OP_CEIL: for (int k = 0; k < BLOCK; k++) d[k] = ceil##F(a[k]); break; \
        case OP_TRUNC: for (int k = 0; k < BLOCK; k++) d[k] = trunc##F(a[k]); break; \
        case OP_FMA: for (int k = 0; k < BLOCK; k++) d[k] = fma##F(a[k], b[k], c[k]); break; \
        case OP_ISNAN: for (int k = 0; k < BLOCK; k++) di[k] = isnan(a[k]) != 0; break; \
        case OP_ISINF: for (int k = 0; k < BLOCK; k++) di[k] = isinf(a[k]) != 0; break; \
        case OP_ISFINITE: for (int k = 0; k < BLOCK; k++) di[k] = isfinite(a[k]) != 0; break; \
        case OP_SIGNBIT: for (int k = 0; k < BLOCK; k++) di[k] = signbit(a[k]) != 0; break; \
        MATH1(OP_SQRT, sqrt##F) MATH1(OP_CBRT, cbrt##F) MATH1(OP_EXP, exp##F)      \
        MATH1(OP_EXP2, exp2##F) MATH1(OP_LOG, log##F) MATH1(OP_LOG2, log2##F)      \
        MATH1(OP_LOG10, log10##F) MATH1(OP_SIN, sin##F) MATH1(OP_COS, cos##F)      \
        MATH1(OP_TAN, tan##F) MATH1(OP_ASIN, asin##F) MATH1(OP_ACOS, acos##F)      \
        MATH1(OP_ATAN, atan##F) MATH1(OP_SINH, sinh##F) MATH1(OP_COSH, cosh##F)    \
        MATH1(OP_TANH, tanh##F) MATH1(OP_ROUND, round##F)                         \
        MATH2(OP_POW, pow##F) MATH2(OP_ATAN2, atan2##F) MATH2(OP_HYPOT, hypot##F)  \
        MATH2(OP_FMIN, fmin##F) MATH2(OP_FMAX, fmax##F) MATH2(OP_FMOD, fmod##F)    \
        MATH2(OP_COPYSIGN, copysign##F)                                           \
        default: break;                                                          \
        }                                                                        \
    }
#define FLOAT_EVALS(SUF, ATTR)                                                   \
    FLOAT_EVAL(eval_f32##SUF, float, f, ATTR)                                    \
    FLOAT_EVAL(eval_f64##SUF, double, , ATTR)

/* Every type's loops, built twice on x86-64: for the baseline (SSE2) and
   for AVX2, taken where the CPU has it (gpgpu__host_avx2). AVX2 doubles
   the lanes and brings the 32-bit integer multiply that SSE2 lacks (a u32
   map x * x ran at 3.8 instructions an element, the serial loop about
   1.5). Not FMA: a float operator's result stays one rounding, as the
   kernel's is. */
INT_EVALS(, )
FLOAT_EVALS(, )
#ifdef GPGPU__AVX2_TARGET
#define EXPR_AVX2 1
INT_EVALS(_avx2, __attribute__((target("avx2"))))
FLOAT_EVALS(_avx2, __attribute__((target("avx2"))))
#define EVAL(NAME, ARGS) (avx2 ? NAME##_avx2 ARGS : NAME ARGS)
#else
#define EVAL(NAME, ARGS) NAME ARGS
#endif

/* Runs e's instructions on the block whose x is at p[e->x], i0 its first
   index; p holds every register's block. */
static void run_block(const gpgpu__hexpr *e, void **p, uint64_t i0, int avx2)
{
    (void)avx2;
    for (int j = 0; j < e->nins; j++) {
        const ins *in = &e->code[j];
        switch ((opcode)in->op) {
        case OP_INDEX: {
            uint64_t *d = p[in->dst];
            for (int k = 0; k < BLOCK; k++)
                d[k] = i0 + (uint64_t)k;
            break;
        }
        case OP_CVT:
            cvt_block((vt)in->t, (vt)in->from, p[in->dst], p[in->a]);
            break;
        default:
            switch ((vt)in->t) {
#define INT_ARGS p[in->dst], p[in->a], p[in->b], p[in->b], p[in->c]
#define FLOAT_ARGS p[in->dst], p[in->a], p[in->b], p[in->c], p[in->c]
            case V_I32: EVAL(eval_i32, ((opcode)in->op, INT_ARGS)); break;
            case V_U32: EVAL(eval_u32, ((opcode)in->op, INT_ARGS)); break;
            case V_I64: EVAL(eval_i64, ((opcode)in->op, INT_ARGS)); break;
            case V_U64: EVAL(eval_u64, ((opcode)in->op, INT_ARGS)); break;
            case V_F32: EVAL(eval_f32, ((opcode)in->op, FLOAT_ARGS)); break;
            case V_F64: EVAL(eval_f64, ((opcode)in->op, FLOAT_ARGS)); break;
#undef INT_ARGS
#undef FLOAT_ARGS
            }
        }
    }
}

/* Calls fn(arg, block's result, k0, len) for each block of in[0 .. n).
   direct (or NULL): where whole blocks' results may go instead of a
   register (the caller's array of the result's type, from element 0). */
static int each_block(const gpgpu__hexpr *e, const void *in, uint64_t i0, size_t n,
                      void (*fn)(void *arg, const void *r, size_t k0, size_t len), void *arg,
                      unsigned char *direct)
{
#ifdef EXPR_AVX2
    const int avx2 = gpgpu__host_avx2();
#else
    const int avx2 = 0;
#endif
    const size_t rs = (size_t)width(e->result_t) / 8;
    enum { STACK_REGS = 8 }; /* 16 KiB: most expressions, with no malloc */
    const size_t xs = gpgpu__type((gpgpu_type)e->xt)->size;
    /* one more register for a last block's x, 8-byte values throughout */
    _Alignas(64) unsigned char local[STACK_REGS * BLOCK * 8];
    unsigned char *store = e->nregs + 1 <= STACK_REGS
                               ? local
                               : malloc((size_t)(e->nregs + 1) * BLOCK * 8);
    void *p[MAX_REGS + 1];
    if (!store)
        return 0;
    for (int r = 0; r <= e->nregs; r++)
        p[r] = store + (size_t)r * BLOCK * 8;
    for (int c = 0; c < e->nconst; c++) {
        const scalar k = e->const_val[c];
        void *d = p[e->const_reg[c]];
        switch (e->rtype[e->const_reg[c]]) {
        case V_I32: case V_U32: { uint32_t *q = d; for (int j = 0; j < BLOCK; j++) q[j] = (uint32_t)k.u; } break;
        case V_I64: case V_U64: { uint64_t *q = d; for (int j = 0; j < BLOCK; j++) q[j] = k.u; } break;
        case V_F32: { float *q = d; for (int j = 0; j < BLOCK; j++) q[j] = k.f; } break;
        case V_F64: { double *q = d; for (int j = 0; j < BLOCK; j++) q[j] = k.d; } break;
        }
    }
    void *pad = p[e->nregs];
    if (n % BLOCK)
        memset(pad, 0, BLOCK * 8);
    for (size_t k0 = 0; k0 < n; k0 += BLOCK) {
        size_t len = n - k0 < BLOCK ? n - k0 : BLOCK;
        if (len == BLOCK) {
            p[e->x] = (void *)((const unsigned char *)in + k0 * xs);
        } else {
            memcpy(pad, (const unsigned char *)in + k0 * xs, len * xs);
            p[e->x] = pad;
        }
        void *home = p[e->result];
        if (direct && len == BLOCK && e->result_written)
            p[e->result] = direct + k0 * rs;
        run_block(e, p, i0 + k0, avx2);
        fn(arg, p[e->result], k0, len);
        p[e->result] = home;
    }
    if (store != local)
        free(store);
    return 1;
}

typedef struct {
    const gpgpu__hexpr *e;
    gpgpu_type t;
    unsigned char *out;
    unsigned char tmp[BLOCK * 8];
} map_job;

static void map_block(void *arg, const void *r, size_t k0, size_t len)
{
    map_job *j = arg;
    const size_t s = gpgpu__type(j->t)->size;
    if (r == j->out + k0 * s) /* written there directly */
        return;
    if (len == BLOCK) {
        cvt_block((vt)j->t, j->e->result_t, j->out + k0 * s, r);
    } else {
        cvt_block((vt)j->t, j->e->result_t, j->tmp, r);
        memcpy(j->out + k0 * s, j->tmp, len * s);
    }
}

int gpgpu__hexpr_map(const gpgpu__hexpr *e, gpgpu_type t, const void *in, size_t n, void *out)
{
    map_job j;
    j.e = e;
    j.t = t;
    j.out = out;
    return each_block(e, in, 0, n, map_block, &j,
                      (vt)t == e->result_t ? (unsigned char *)out : NULL);
}

typedef struct {
    const gpgpu__hexpr *e;
    unsigned char *flags;
    int avx2;
} test_job;

/* flags[k] = r[k] != 0 for a block, or its first len: restrict
   parameters, so that a whole block's loop is vector code (a char pointer
   may otherwise alias anything); built for AVX2 too, as the evaluation. */
#define FLAGS_OF(NAME, T, ATTR)                                                  \
    ATTR static void NAME(unsigned char *restrict f, const T *restrict r, size_t len) \
    {                                                                            \
        if (len == BLOCK)                                                        \
            for (size_t k = 0; k < BLOCK; k++)                                   \
                f[k] = r[k] != 0;                                                \
        else                                                                     \
            for (size_t k = 0; k < len; k++)                                     \
                f[k] = r[k] != 0;                                                \
    }
#define FLAGS_OFS(SUF, ATTR)                                                     \
    FLAGS_OF(flags_u32##SUF, uint32_t, ATTR)                                     \
    FLAGS_OF(flags_u64##SUF, uint64_t, ATTR)                                     \
    FLAGS_OF(flags_f32##SUF, float, ATTR)                                        \
    FLAGS_OF(flags_f64##SUF, double, ATTR)
FLAGS_OFS(, )
#ifdef EXPR_AVX2
FLAGS_OFS(_avx2, __attribute__((target("avx2"))))
#endif

static void test_block(void *arg, const void *r, size_t k0, size_t len)
{
    test_job *j = arg;
    unsigned char *f = j->flags + k0;
    const int avx2 = j->avx2;
    (void)avx2;
    switch (j->e->result_t) {
    case V_I32: case V_U32: EVAL(flags_u32, (f, r, len)); break;
    case V_I64: case V_U64: EVAL(flags_u64, (f, r, len)); break;
    case V_F32: EVAL(flags_f32, (f, r, len)); break;
    case V_F64: EVAL(flags_f64, (f, r, len)); break;
    }
}

int gpgpu__hexpr_test(const gpgpu__hexpr *e, const void *in, uint64_t i0, size_t n,
                      unsigned char *flags)
{
#ifdef EXPR_AVX2
    test_job j = {e, flags, gpgpu__host_avx2()};
#else
    test_job j = {e, flags, 0};
#endif
    return each_block(e, in, i0, n, test_block, &j, NULL);
}
