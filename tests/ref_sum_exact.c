/* ref_sum_exact.c - see ref_sum_exact.h. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ref_sum_exact.h"

/* Digit d weighs 2^(24 d - ORIGIN): the smallest subnormal, 2^-1074, and
   2^1024 times 2^64 elements both fit. */
#define ORIGIN 1152
#define DIGITS 100
#define RADIX ((int64_t)1 << 24)

typedef struct { int64_t d[DIGITS]; } big;

static void big_carry(big *b)
{
    for (int i = 0; i + 1 < DIGITS; i++) {
        int64_t r = b->d[i] % RADIX;
        if (r < 0)
            r += RADIX;
        b->d[i + 1] += (b->d[i] - r) / RADIX;
        b->d[i] = r;
    }
}

/* b += sign * x, x finite. */
static void big_add(big *b, double x, int sign)
{
    if (x == 0)
        return;
    if (x < 0)
        sign = -sign;
    int e;
    double f = frexp(fabs(x), &e);                     /* |x| = f 2^e, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);               /* |x| = m 2^(e - 53) */
    int at = e - 53 + ORIGIN;                          /* >= 0 */
    unsigned __int128 v = (unsigned __int128)m << (at % 24);
    for (int i = at / 24; v; i++, v >>= 24)
        b->d[i] += sign * (int64_t)(v & (RADIX - 1));
}

/* Sign of b (carried), and b made its magnitude. */
static int big_abs(big *b)
{
    big_carry(b);
    if (b->d[DIGITS - 1] >= 0) {
        for (int i = DIGITS - 1; i >= 0; i--)
            if (b->d[i])
                return 1;
        return 0;
    }
    for (int i = 0; i < DIGITS; i++)
        b->d[i] = -b->d[i];
    big_carry(b);
    return -1;
}

static int big_cmp(const big *a, const big *b)
{
    for (int i = DIGITS - 1; i >= 0; i--)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

static double to_type(int is_f32, double v)
{
    return is_f32 ? (double)(float)v : v;
}

static double step(int is_f32, double v, double toward)
{
    return is_f32 ? (double)nextafterf((float)v, (float)toward) : nextafter(v, toward);
}

/* Is v's significand even (its last bit in the type zero)? */
static int even(int is_f32, double v)
{
    if (is_f32) {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, 4);
        return !(w & 1);
    }
    uint64_t w;
    memcpy(&w, &v, 8);
    return !(w & 1);
}

/* The sum s (non-zero, carried) rounded to the type. */
static double round_big(int is_f32, const big *s)
{
    big mag = *s;
    int sign = big_abs(&mag);
    /* overflow: |s| >= max + half an ulp of max */
    double max = is_f32 ? FLT_MAX : DBL_MAX, half = is_f32 ? 0x1p103 : 0x1p970;
    big lim = {{0}};
    big_add(&lim, max, 1);
    big_add(&lim, half, 1);
    big_carry(&lim);
    if (big_cmp(&mag, &lim) >= 0)
        return sign * INFINITY;
    long double approx = 0;
    for (int i = DIGITS - 1; i >= 0; i--)
        approx += ldexpl((long double)mag.d[i], 24 * i - ORIGIN);
    double c = to_type(is_f32, (double)(sign * approx)), best = c;
    big best_err;
    int have = 0;
    for (int k = 0; k < 3; k++)
        c = step(is_f32, c, -INFINITY);
    for (int k = 0; k < 7; k++, c = step(is_f32, c, INFINITY)) {
        if (isinf(c))
            continue;
        big err = *s;
        big_add(&err, c, -1);
        big_abs(&err);
        int cmp = have ? big_cmp(&err, &best_err) : -1;
        if (cmp < 0 || (cmp == 0 && even(is_f32, c) && !even(is_f32, best))) {
            best = c;
            best_err = err;
            have = 1;
        }
    }
    return best;
}

double ref_sum_exact(int is_f32, const void *in, size_t n)
{
    big s = {{0}};
    int nan = 0, pinf = 0, ninf = 0, all_neg_zero = n > 0;
    for (size_t i = 0; i < n; i++) {
        double x = is_f32 ? (double)((const float *)in)[i] : ((const double *)in)[i];
        nan |= isnan(x);
        pinf |= x == INFINITY;
        ninf |= x == -INFINITY;
        all_neg_zero &= x == 0 && signbit(x);
        if (isfinite(x))
            big_add(&s, x, 1);
        if (i % (1 << 20) == 0)
            big_carry(&s);
    }
    if (nan || (pinf && ninf))
        return NAN;
    if (pinf || ninf)
        return pinf ? INFINITY : -INFINITY;
    big z = s;
    if (big_abs(&z) == 0)
        return all_neg_zero ? -0.0 : 0.0;
    big_carry(&s);
    return round_big(is_f32, &s);
}
