/*
 * gpgpu-histogram - histograms of an image (PNG, JPEG) or of a raw binary
 * file of samples, computed with libgpgpu, printed as terminal bar charts
 * and, with -o, drawn as a chart (PNG, SVG or PDF, with cairo): axes with
 * tick values in the data's units, counts on a linear or logarithmic scale,
 * a panel per channel or the channels overlaid. With --2d, a raw file of
 * (x, y) pairs (or a text file of two columns) becomes a 2-D histogram,
 * printed as a terminal shade map and drawn as a heat map with a colour bar.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>
#ifdef HAVE_JPEG
#include <jpeglib.h>
#endif
#ifdef HAVE_CAIRO
#include <cairo.h>
#ifdef CAIRO_HAS_SVG_SURFACE
#include <cairo-svg.h>
#endif
#ifdef CAIRO_HAS_PDF_SURFACE
#include <cairo-pdf.h>
#endif
#endif

#include "gpgpu.h"

enum { CHART_ROWS = 32, CHART_WIDTH = 60 };

/* Limits: the library's bin counts (an image has four channels of bins),
   and what a raw read takes from something that is not a regular file. */
#define RAW_MAX_BINS ((unsigned long long)1 << 31)
#define IMAGE_MAX_BINS ((unsigned long long)1 << 29)
#define STREAM_MAX ((size_t)256 << 20)

typedef struct {
    const char *device, *type, *range, *out, *file;
    size_t nbins, nbins_y;  /* nbins_y: --2d */
    int log, overlay, two_d, columns;
    int width, height; /* of the chart, in pixels (points for PDF) */
} options;

static void usage(FILE *f)
{
    fputs("usage: gpgpu-histogram [OPTIONS] IMAGE.png|IMAGE.jpg\n"
          "       gpgpu-histogram -t TYPE [-r LO:HI] [OPTIONS] FILE\n"
          "       gpgpu-histogram -t TYPE --2d [-b NX[xNY]] [-r XLO:XHI[,YLO:YHI]] [OPTIONS] FILE\n"
          "Counts the R, G, B and luminance levels of an image, or the samples of a raw\n"
          "file, on the default OpenCL device, and prints them as terminal bar charts.\n"
          "  -b BINS        number of bins (default 256; at most 536870912 for an image,\n"
          "                 2147483648 for samples, and what fits in memory)\n"
          "  -d DEVICE      as GPGPU_DEVICE: gpu, cpu, host, P:D or a name\n"
          "  -o CHART       also draw a chart: CHART.png, CHART.svg or CHART.pdf\n"
          "  --log          counts on a logarithmic scale in the chart\n"
          "  --overlay      the channels in one plot instead of a panel each\n"
          "  --size WxH     the chart's size in pixels (default 1200x900)\n"
          "  -t TYPE        FILE holds raw native-endian samples: i32 u32 f32 i64 u64 f64\n"
          "                 (a regular file is read whole; a pipe or device at most\n"
          "                 256 MiB)\n"
          "  -r LO:HI       bin [LO, HI) (default: from the smallest to the largest finite\n"
          "                 sample; all samples equal to x: [x - 0.5, x + 0.5))\n"
          "  --2d           FILE holds (x, y) pairs of TYPE, x first: a 2-D histogram, printed\n"
          "                 as a shade map and drawn (-o) as a heat map with a colour bar;\n"
          "                 -b NX or NXxNY bins (NX * NY at most 2147483648), -r for both\n"
          "                 axes or XLO:XHI,YLO:YHI, --log for a logarithmic colour scale\n"
          "  --columns      with --2d: FILE is text, two numbers per line (x y)\n"
          "  -h, --help     this text\n",
          f);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpgpu-histogram: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* The memory this process can have now, in bytes (0: unknown): what the
   machine has available, within the limit on its address space. */
static double available_memory(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    double avail = pages > 0 && size > 0 ? (double)pages * size : 0;
    struct rlimit lim;
    unsigned long vm = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%lu", &vm) == 1 && size > 0 && getrlimit(RLIMIT_AS, &lim) == 0 &&
        lim.rlim_cur != RLIM_INFINITY) {
        double left = (double)lim.rlim_cur - (double)vm * size;
        avail = left < avail || avail == 0 ? fmax(left, 1) : avail;
    }
    if (f)
        fclose(f);
    return avail;
}

/* -b: a whole number from 1 to the limit of the mode, whose counts (8 bytes
   each, channels of them) fit in half the memory available. */
static int parse_bins(const char *v, int channels, size_t *nbins)
{
    unsigned long long max = channels > 1 ? IMAGE_MAX_BINS : RAW_MAX_BINS, b = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9'; p++)
        b = b > max ? b : b * 10 + (unsigned long long)(*p - '0');
    if (p == v || *p || b == 0 || b > max) {
        fail("-b %s: the number of bins must be a whole number from 1 to %llu", v, max);
        return -1;
    }
    double need = (double)b * 8 * channels, avail = available_memory();
    if (avail > 0 && need > avail / 2) {
        fail("-b %s: %s%llu counts take %.1f GiB, more than half of the %.1f GiB this "
             "process can have", v, channels > 1 ? "4 channels of " : "", b,
             need / (1 << 30), avail / (1 << 30));
        return -1;
    }
    *nbins = (size_t)b;
    return 0;
}

/* --2d: -b NX (square) or NXxNY, the cells at most RAW_MAX_BINS and their
   counts in half the memory available. */
static int parse_bins_2d(const char *v, size_t *nx, size_t *ny)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10), y = x;
    if (end != v && *end == 'x')
        y = strtoull(end + 1, &end, 10);
    if (*v < '0' || *v > '9' || *end || x == 0 || y == 0 || x > RAW_MAX_BINS ||
        y > RAW_MAX_BINS / x) {
        fail("-b %s: need NX or NXxNY, whole numbers from 1 with NX * NY at most %llu", v,
             RAW_MAX_BINS);
        return -1;
    }
    double need = (double)x * (double)y * 8, avail = available_memory();
    if (avail > 0 && need > avail / 2) {
        fail("-b %s: %llu x %llu counts take %.1f GiB, more than half of the %.1f GiB this "
             "process can have", v, x, y, need / (1 << 30), avail / (1 << 30));
        return -1;
    }
    *nx = (size_t)x;
    *ny = (size_t)y;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    const char *bins = "256", *size = NULL;
    memset(o, 0, sizeof *o);
    o->width = 1200;
    o->height = 900;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (o->file) {
                fail("one input file only (got %s and %s)", o->file, a);
                return -1;
            }
            o->file = a;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--log") || !strcmp(a, "--overlay") || !strcmp(a, "--2d") ||
            !strcmp(a, "--columns")) {
            *(a[2] == 'l' ? &o->log : a[2] == 'o' ? &o->overlay : a[2] == '2' ? &o->two_d
                                                                               : &o->columns) = 1;
            continue;
        }
        int is_size = !strcmp(a, "--size");
        if (!is_size && (strlen(a) != 2 || !strchr("bdort", a[1]))) {
            fail("unknown option %s", a);
            return -1;
        }
        if (i + 1 >= argc) {
            fail("%s needs a value", a);
            return -1;
        }
        const char *v = argv[++i];
        if (is_size) {
            size = v;
            continue;
        }
        switch (a[1]) {
        case 'b': bins = v; break;
        case 'd': o->device = v; break;
        case 'o': o->out = v; break;
        case 'r': o->range = v; break;
        default: o->type = v; break;
        }
    }
    if (!o->file) {
        fail("no input file");
        return -1;
    }
    if (size) {
        char end;
        if (sscanf(size, "%dx%d%c", &o->width, &o->height, &end) != 2 || o->width < 200 ||
            o->height < 150 || o->width > 20000 || o->height > 20000) {
            fail("--size %s: need WxH, from 200x150 to 20000x20000", size);
            return -1;
        }
    }
    if (o->out && !has_suffix(o->out, ".png") && !has_suffix(o->out, ".svg") &&
        !has_suffix(o->out, ".pdf")) {
        fail("-o %s: the chart's name must end in .png, .svg or .pdf", o->out);
        return -1;
    }
    if (o->range && !o->type) {
        fail("-r is for raw samples (-t TYPE); an image's levels are 0 to 255");
        return -1;
    }
    if ((o->two_d || o->columns) && !o->type) {
        fail("%s is for raw samples: give their type with -t TYPE", o->two_d ? "--2d" : "--columns");
        return -1;
    }
    if (o->columns && !o->two_d) {
        fail("--columns reads (x, y) pairs: use it with --2d");
        return -1;
    }
    if (o->two_d)
        return parse_bins_2d(bins, &o->nbins, &o->nbins_y);
    return parse_bins(bins, o->type ? 1 : 4, &o->nbins);
}

/* ---- reading images: every loader returns malloc'd RGBA8 rows ------------- */

static uint8_t *load_png(const char *path, size_t *w, size_t *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        fprintf(stderr, "gpgpu-histogram: %s: %s\n", path, img.message);
        return NULL;
    }
    img.format = PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
        fprintf(stderr, "gpgpu-histogram: %s: %s\n", path, px ? img.message : "no memory");
        free(px);
        png_image_free(&img);
        return NULL;
    }
    *w = img.width;
    *h = img.height;
    return px;
}

#ifdef HAVE_JPEG
static uint8_t *load_jpeg(const char *path, size_t *w, size_t *h)
{
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr jerr;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gpgpu-histogram: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    cinfo.err = jpeg_std_error(&jerr);  /* errors exit() with a message */
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, f);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    *w = cinfo.output_width;
    *h = cinfo.output_height;
    uint8_t *px = malloc(*w * *h * 4), *row = malloc(*w * 3);
    while (px && row && cinfo.output_scanline < cinfo.output_height) {
        uint8_t *dst = px + (size_t)cinfo.output_scanline * *w * 4;
        jpeg_read_scanlines(&cinfo, &row, 1);
        for (size_t x = 0; x < *w; x++) {  /* RGB -> RGBA */
            memcpy(dst + 4 * x, row + 3 * x, 3);
            dst[4 * x + 3] = 255;
        }
    }
    if (px && row)
        jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    fclose(f);
    free(row);
    return px;
}
#endif

static uint8_t *load_image(const char *path, size_t *w, size_t *h)
{
    if (has_suffix(path, ".jpg") || has_suffix(path, ".jpeg")) {
#ifdef HAVE_JPEG
        return load_jpeg(path, w, h);
#else
        fprintf(stderr, "gpgpu-histogram: built without libjpeg: cannot read %s\n", path);
        return NULL;
#endif
    }
    return load_png(path, w, h);
}

/* ---- the terminal chart ------------------------------------------------------ */

/* A terminal bar chart of bins, grouped into at most CHART_ROWS rows, each
   labelled with its lower edge. */
static void print_chart(const char *title, const uint64_t *bins, size_t nbins, double lo,
                        double hi)
{
    size_t per = (nbins + CHART_ROWS - 1) / CHART_ROWS, rows = (nbins + per - 1) / per;
    uint64_t sums[CHART_ROWS] = { 0 }, max = 0, total = 0;
    for (size_t i = 0; i < nbins; i++) {
        sums[i / per] += bins[i];
        total += bins[i];
    }
    for (size_t r = 0; r < rows; r++)
        max = sums[r] > max ? sums[r] : max;
    printf("%s: %zu bins over [%.*g, %.*g), %llu counted\n", title, nbins, 15, lo, 15, hi,
           (unsigned long long)total);
    double step = (hi - lo) * per / nbins;
    /* enough significant digits that neighbouring rows differ */
    double mag = fmax(fabs(lo), fabs(hi));
    int prec = step > 0 && mag > 0 ? (int)ceil(log10(mag / step)) + 2 : 5;
    prec = prec < 5 ? 5 : prec > 17 ? 17 : prec;
    for (size_t r = 0; r < rows; r++) {
        int len = max ? (int)((double)sums[r] / max * CHART_WIDTH + 0.5) : 0;
        printf("%12.*g |%.*s%*s %llu\n", prec, lo + step * r, len,
               "############################################################",
               CHART_WIDTH - len, "", (unsigned long long)sums[r]);
    }
}

/* ---- the drawn chart ---------------------------------------------------------- */

/* One histogram to draw: its counts and colour (matplotlib's tab10). */
typedef struct {
    const char *name;
    const uint64_t *bins;
    double rgb[3];
} series;

typedef struct {
    const char *title;      /* the figure's */
    const char *xlabel;
    double lo, hi;          /* the bins cover [lo, hi) in data units */
    size_t nbins;
    const series *s;
    int ns;
} chart;

static void set_rgb(double rgb[3], unsigned hex)
{
    for (int k = 0; k < 3; k++)
        rgb[k] = (double)((hex >> (16 - 8 * k)) & 0xff) / 255;
}

/* A 2-D histogram to draw: bins[ix * ny + iy] over [xlo, xhi) x [ylo, yhi). */
typedef struct {
    const char *title;
    const uint64_t *bins;
    size_t nx, ny;
    double xlo, xhi, ylo, yhi;
} heat;

#ifdef HAVE_CAIRO
typedef struct { double x0, y0, x1, y1; } rect;

typedef struct {
    double xlo, xhi, ylo, yhi; /* the axes' limits, in data units and counts */
    int log;
} limits;

/* Evenly spaced round values (1, 2, 2.5 or 5 times a power of ten) in
   [lo, hi], about target of them; returns how many, and the step. */
static int nice_ticks(double lo, double hi, int target, double *t, int max, double *step_out)
{
    static const double steps[] = { 1, 2, 2.5, 5, 10 };
    double raw = (hi - lo) / (target > 1 ? target : 1), mag = pow(10, floor(log10(raw)));
    double step = 10 * mag;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        if (steps[k] * mag >= raw) {
            step = steps[k] * mag;
            break;
        }
    int n = 0;
    for (double k = ceil(lo / step - 1e-9); k <= floor(hi / step + 1e-9) && n < max; k++)
        t[n++] = k * step == 0 ? 0 : k * step;
    *step_out = step;
    return n;
}

/* The text s at (x, y): ax 0, 0.5, 1 puts x at its left, centre or right;
   ay likewise puts y at the top, middle or bottom of a digit's height. */
static void text(cairo_t *cr, double x, double y, double size, double ax, double ay,
                 const char *s)
{
    cairo_text_extents_t e, digit;
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    cairo_text_extents(cr, "0", &digit);
    cairo_move_to(cr, x - ax * e.x_advance, y - digit.y_bearing - ay * digit.height);
    cairo_show_text(cr, s);
}

static double text_width(cairo_t *cr, double size, const char *s)
{
    cairo_text_extents_t e;
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

/* Digits after the point that a multiple of step needs. */
static int label_digits(double step)
{
    int d = 0;
    while (d < 12 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d))
        d++;
    return d;
}

/* A tick value at the precision its step needs; large or tiny ones in
   exponent form. */
static void tick_label(char *buf, size_t size, double v, double step)
{
    const char *minus = v < 0 ? "\u2212" : ""; /* a true minus sign, as matplotlib's */
    if (v != 0 && (fabs(v) >= 1e7 || step < 1e-4))
        snprintf(buf, size, "%s%.4g", minus, fabs(v));
    else
        snprintf(buf, size, "%s%.*f", minus, label_digits(step), fabs(v));
}

static double map_x(const rect *r, const limits *l, double v)
{
    return r->x0 + (v - l->xlo) / (l->xhi - l->xlo) * (r->x1 - r->x0);
}

static double map_y(const rect *r, const limits *l, double v)
{
    double f = l->log ? (log10(fmax(v, l->ylo)) - log10(l->ylo)) / (log10(l->yhi) - log10(l->ylo))
                      : (v - l->ylo) / (l->yhi - l->ylo);
    return r->y1 - f * (r->y1 - r->y0);
}

/* The limits matplotlib would pick: 5% margins around the bins' edges and
   above the tallest count; from 0 (linear) or 0.5 (log) below. */
static limits chart_limits(const chart *c, const series *s, int ns, int log)
{
    uint64_t max = 0;
    for (int k = 0; k < ns; k++)
        for (size_t i = 0; i < c->nbins; i++)
            max = s[k].bins[i] > max ? s[k].bins[i] : max;
    double span = c->hi - c->lo;
    limits l = { c->lo - 0.05 * span, c->hi + 0.05 * span, 0, 0, log };
    if (log) {
        l.ylo = 0.5;
        double top = log10(max > 1 ? (double)max : 1.0), bottom = log10(l.ylo);
        l.yhi = pow(10, top + 0.05 * (top - bottom));
    } else {
        l.yhi = max ? 1.05 * (double)max : 1.0;
    }
    return l;
}

/* The bars of one series: a bar per bin, or per pixel column (the largest
   count of its bins) when bins are narrower than a pixel. alpha < 1 also
   outlines the bars' tops in the full colour (overlaid series). */
static void draw_bars(cairo_t *cr, const rect *r, const limits *l, const chart *c,
                      const series *s, double alpha)
{
    double base = l->log ? l->ylo : 0, width = r->x1 - r->x0;
    double bin_px = width * (c->hi - c->lo) / (l->xhi - l->xlo) / (double)c->nbins;
    size_t columns = bin_px >= 1 ? c->nbins : (size_t)ceil(bin_px * (double)c->nbins);
    size_t per = (c->nbins + columns - 1) / columns;
    /* Every bar equally wide, the next whole pixel above a bar's width:
       snapping both edges made a lone one-level bar 1 or 2 pixels wide
       depending on where it fell, and rounding down would leave gaps
       between neighbours. */
    double bar_w = fmax(ceil(bin_px * (double)per - 1e-9), 1);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    cairo_set_source_rgba(cr, s->rgb[0], s->rgb[1], s->rgb[2], alpha);
    cairo_new_path(cr);
    for (size_t b = 0; b < c->nbins; b += per) {
        uint64_t v = 0;
        for (size_t i = b; i < b + per && i < c->nbins; i++)
            v = s->bins[i] > v ? s->bins[i] : v;
        double x0 = map_x(r, l, c->lo + (c->hi - c->lo) * (double)b / (double)c->nbins);
        size_t e = b + per < c->nbins ? b + per : c->nbins;
        double x1 = map_x(r, l, c->lo + (c->hi - c->lo) * (double)e / (double)c->nbins);
        double y = v ? map_y(r, l, (double)v) : map_y(r, l, base);
        double w = e - b == per ? bar_w : fmax(ceil(x1 - x0 - 1e-9), 1);
        if (v)
            cairo_rectangle(cr, round(x0), round(y), w, round(map_y(r, l, base)) - round(y));
    }
    cairo_fill(cr);
    if (alpha < 1) { /* a step line along the bars' tops, as histtype="step" */
        cairo_set_source_rgb(cr, s->rgb[0], s->rgb[1], s->rgb[2]);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, map_x(r, l, c->lo), map_y(r, l, base));
        for (size_t b = 0; b < c->nbins; b += per) {
            uint64_t v = 0;
            for (size_t i = b; i < b + per && i < c->nbins; i++)
                v = s->bins[i] > v ? s->bins[i] : v;
            size_t e = b + per < c->nbins ? b + per : c->nbins;
            double y = map_y(r, l, v ? (double)v : base);
            cairo_line_to(cr, map_x(r, l, c->lo + (c->hi - c->lo) * (double)b / c->nbins), y);
            cairo_line_to(cr, map_x(r, l, c->lo + (c->hi - c->lo) * (double)e / c->nbins), y);
        }
        cairo_line_to(cr, map_x(r, l, c->hi), map_y(r, l, base));
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
        cairo_stroke(cr);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
}

/* Ticks, tick labels and the frame of the axes r; fs is the font size. */
static void draw_frame(cairo_t *cr, const rect *r, const limits *l, double fs)
{
    double t[64], step, tick = 0.35 * fs;
    char buf[64];
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    /* x */
    int n = nice_ticks(l->xlo, l->xhi, (int)((r->x1 - r->x0) / (4 * fs)), t, 64, &step);
    for (int k = 0; k < n; k++) {
        double x = round(map_x(r, l, t[k])) + 0.5;
        cairo_move_to(cr, x, r->y1);
        cairo_line_to(cr, x, r->y1 + tick);
        cairo_stroke(cr);
        tick_label(buf, sizeof buf, t[k], step);
        text(cr, x, r->y1 + tick + 0.35 * fs, fs, 0.5, 0, buf);
    }
    /* y */
    if (l->log) {
        int d0 = (int)ceil(log10(l->ylo)), d1 = (int)floor(log10(l->yhi));
        int every = (d1 - d0) / 8 + 1;
        for (int d = d0 < 0 ? 0 : d0; d <= d1; d += every) {
            double y = round(map_y(r, l, pow(10, d))) + 0.5;
            cairo_move_to(cr, r->x0 - tick, y);
            cairo_line_to(cr, r->x0, y);
            cairo_stroke(cr);
            snprintf(buf, sizeof buf, "%d", d);
            double ew = text_width(cr, 0.7 * fs, buf), x = r->x0 - tick - 0.35 * fs - ew;
            text(cr, x, y - 0.45 * fs, 0.7 * fs, 0, 0.5, buf); /* the exponent */
            text(cr, x, y, fs, 1, 0.5, "10");
        }
    } else {
        n = nice_ticks(l->ylo, l->yhi, (int)((r->y1 - r->y0) / (3.5 * fs)), t, 64, &step);
        for (int k = 0; k < n; k++) {
            double y = round(map_y(r, l, t[k])) + 0.5;
            cairo_move_to(cr, r->x0 - tick, y);
            cairo_line_to(cr, r->x0, y);
            cairo_stroke(cr);
            tick_label(buf, sizeof buf, t[k], step);
            text(cr, r->x0 - tick - 0.35 * fs, y, fs, 1, 0.5, buf);
        }
    }
    cairo_rectangle(cr, round(r->x0) + 0.5, round(r->y0) + 0.5, round(r->x1 - r->x0),
                    round(r->y1 - r->y0));
    cairo_stroke(cr);
}

/* The widest y tick label of limits l, to leave room for it. */
static double y_label_room(cairo_t *cr, const limits *l, double fs)
{
    if (l->log)
        return text_width(cr, fs, "10") + text_width(cr, 0.7 * fs, "00");
    char buf[64];
    double t[64], step, w = 0;
    int n = nice_ticks(l->ylo, l->yhi, 10, t, 64, &step);
    for (int k = 0; k < n; k++) {
        tick_label(buf, sizeof buf, t[k], step);
        w = fmax(w, text_width(cr, fs, buf));
    }
    return w;
}

/* One axes in cell (the part of the figure it owns): title, frame, bars,
   axis labels; a legend when overlaid. Prints where it drew. */
static void draw_axes(cairo_t *cr, const rect *cell, const chart *c, const series *s, int ns,
                      int log, double fs, const char *path)
{
    limits l = chart_limits(c, s, ns, log);
    double left = y_label_room(cr, &l, fs) + 2.6 * fs;
    rect r = { cell->x0 + left, cell->y0 + 2.2 * fs, cell->x1 - 1.5 * fs,
               cell->y1 - 3.4 * fs };
    r.x0 = round(r.x0);
    r.y0 = round(r.y0);
    r.x1 = round(r.x1);
    r.y1 = round(r.y1);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    text(cr, (r.x0 + r.x1) / 2, r.y0 - 0.6 * fs, 1.2 * fs, 0.5, 1,
         ns == 1 ? s[0].name : "R, G, B and luminance");
    for (int k = 0; k < ns; k++)
        draw_bars(cr, &r, &l, c, &s[k], ns > 1 ? 0.3 : 1);
    draw_frame(cr, &r, &l, fs);
    text(cr, (r.x0 + r.x1) / 2, cell->y1 - 0.9 * fs, fs, 0.5, 1, c->xlabel);
    /* the y label, turned a quarter */
    cairo_save(cr);
    cairo_translate(cr, cell->x0 + 0.4 * fs, (r.y0 + r.y1) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, fs, 0.5, 0, log ? "count (log scale)" : "count");
    cairo_restore(cr);
    if (ns > 1) { /* the legend, top right */
        double w = 0, row = 1.5 * fs;
        for (int k = 0; k < ns; k++)
            w = fmax(w, text_width(cr, fs, s[k].name));
        rect g = { r.x1 - w - 3.8 * fs, r.y0 + 0.6 * fs, r.x1 - 0.6 * fs,
                   r.y0 + 0.6 * fs + ns * row + 0.6 * fs };
        cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
        cairo_rectangle(cr, g.x0, g.y0, g.x1 - g.x0, g.y1 - g.y0);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
        cairo_stroke(cr);
        for (int k = 0; k < ns; k++) {
            double y = g.y0 + 0.6 * fs + k * row;
            cairo_set_source_rgb(cr, s[k].rgb[0], s[k].rgb[1], s[k].rgb[2]);
            cairo_rectangle(cr, g.x0 + 0.6 * fs, y + 0.1 * fs, 1.8 * fs, 0.8 * fs);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            text(cr, g.x0 + 2.8 * fs, y + 0.5 * fs, fs, 0, 0.5, s[k].name);
        }
    }
    printf("%s: %s axes at (%.0f, %.0f)-(%.0f, %.0f), x %.10g to %.10g, y %.10g to %.10g %s\n",
           path, ns == 1 ? s[0].name : "overlaid", r.x0, r.y0, r.x1, r.y1, l.xlo, l.xhi, l.ylo,
           l.yhi, log ? "log" : "linear");
}

/* SVG and PDF sizes are in points: a pixel of the PNG is 0.75 pt (96 dpi). */
#define PT_PER_PX 0.75

/* The surface -o asks for, by the file's extension. */
static cairo_surface_t *chart_surface(const char *path, int w, int h)
{
    if (has_suffix(path, ".svg")) {
#ifdef CAIRO_HAS_SVG_SURFACE
        return cairo_svg_surface_create(path, w * PT_PER_PX, h * PT_PER_PX);
#else
        fail("%s: this cairo writes no SVG", path);
        return NULL;
#endif
    }
    if (has_suffix(path, ".pdf")) {
#ifdef CAIRO_HAS_PDF_SURFACE
        return cairo_pdf_surface_create(path, w * PT_PER_PX, h * PT_PER_PX);
#else
        fail("%s: this cairo writes no PDF", path);
        return NULL;
#endif
    }
    return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
}

/* The figure -o asks for: a white page with the title on top; *fs is the
   font size for the page's size. NULL after a message. */
static cairo_t *figure_begin(const options *o, const char *title, double *fs)
{
    cairo_surface_t *surf = chart_surface(o->out, o->width, o->height);
    if (!surf)
        return NULL;
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        fail("%s: %s", o->out, cairo_status_to_string(cairo_surface_status(surf)));
        cairo_surface_destroy(surf);
        return NULL;
    }
    cairo_t *cr = cairo_create(surf);
    cairo_surface_destroy(surf); /* cr holds it */
    if (cairo_surface_get_type(surf) != CAIRO_SURFACE_TYPE_IMAGE)
        cairo_scale(cr, PT_PER_PX, PT_PER_PX);
    double W = o->width, H = o->height;
    *fs = fmax(9, 14 * fmin(W / 1200, H / 900));
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, W / 2, 0.9 * *fs, 1.3 * *fs, 0.5, 0, title);
    return cr;
}

/* Writes and closes the figure of cr; 0, or -1 after a message. */
static int figure_end(const options *o, cairo_t *cr)
{
    cairo_surface_t *surf = cairo_surface_reference(cairo_get_target(cr));
    cairo_destroy(cr);
    cairo_status_t st = CAIRO_STATUS_SUCCESS;
    if (cairo_surface_get_type(surf) == CAIRO_SURFACE_TYPE_IMAGE)
        st = cairo_surface_write_to_png(surf, o->out);
    cairo_surface_finish(surf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surf);
    cairo_surface_destroy(surf);
    if (st != CAIRO_STATUS_SUCCESS) {
        fail("%s: %s", o->out, cairo_status_to_string(st));
        return -1;
    }
    /* cairo's font caches, freed so that a leak checker sees only leaks */
    cairo_debug_reset_static_data();
    printf("%s: %dx%d chart written\n", o->out, o->width, o->height);
    return 0;
}

static int write_chart(const options *o, const chart *c)
{
    double fs;
    cairo_t *cr = figure_begin(o, c->title, &fs);
    if (!cr)
        return -1;
    double W = o->width, H = o->height;
    double top = 2.8 * fs;
    if (o->overlay || c->ns == 1) {
        rect cell = { 0.5 * fs, top, W - 0.5 * fs, H - 0.3 * fs };
        draw_axes(cr, &cell, c, c->s, c->ns, o->log, fs, o->out);
    } else { /* a grid of panels, two across */
        int rows = (c->ns + 1) / 2;
        double cw = (W - fs) / 2, ch = (H - top - 0.3 * fs) / rows;
        for (int k = 0; k < c->ns; k++) {
            rect cell = { 0.5 * fs + (k % 2) * cw, top + (k / 2) * ch,
                          0.5 * fs + (k % 2 + 1) * cw, top + (k / 2 + 1) * ch };
            draw_axes(cr, &cell, c, &c->s[k], 1, o->log, fs, o->out);
        }
    }
    return figure_end(o, cr);
}

/* matplotlib's viridis at nine stops, linear between them: f in [0, 1]. */
static void viridis(double f, double rgb[3])
{
    static const unsigned stops[9] = { 0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                       0x28ae80, 0x5ec962, 0xaddc30, 0xfde725 };
    double p = fmin(fmax(f, 0), 1) * 8, a[3], b[3];
    int k = p >= 8 ? 7 : (int)p;
    set_rgb(a, stops[k]);
    set_rgb(b, stops[k + 1]);
    for (int c = 0; c < 3; c++)
        rgb[c] = a[c] + (p - k) * (b[c] - a[c]);
}

/* Where count v sits on the colour scale (0 to max); -1: not drawn (an
   empty cell on a log scale, white as matplotlib's LogNorm leaves it). */
static double colour_pos(uint64_t v, uint64_t max, int log)
{
    if (log)
        return v == 0 ? -1 : max > 1 ? log10((double)v) / log10((double)max) : 1;
    return max ? (double)v / (double)max : 0;
}

/* The colour bar's ticks (counts) over span pixels; returns how many. */
static int colour_ticks(uint64_t max, int log, double span, double fs, double t[64],
                        double *step)
{
    double top = max > 0 ? (double)max : 1;
    int n = 0;
    *step = 1;
    if (!log)
        return nice_ticks(0, top, (int)(span / (3.5 * fs)), t, 64, step);
    int d1 = max > 1 ? (int)floor(log10(top)) : 0, every = d1 / 8 + 1;
    for (int d = 0; d <= d1 && n < 64; d += every)
        t[n++] = pow(10, d);
    return n;
}

/* The width of the colour bar's widest tick label. */
static double colour_label_room(cairo_t *cr, uint64_t max, int log, double span, double fs)
{
    double t[64], step, w = 0;
    char buf[64];
    int n = colour_ticks(max, log, span, fs, t, &step);
    for (int k = 0; k < n; k++) {
        if (log) {
            snprintf(buf, sizeof buf, "%d", (int)round(log10(t[k])));
            w = fmax(w, text_width(cr, fs, "10") + text_width(cr, 0.7 * fs, buf));
        } else {
            tick_label(buf, sizeof buf, t[k], step);
            w = fmax(w, text_width(cr, fs, buf));
        }
    }
    return w;
}

/* The colour bar in r: the scale from bottom to top, ticks and their
   values on the right, the label turned a quarter beyond them. */
static void draw_colour_bar(cairo_t *cr, const rect *r, uint64_t max, int log, double fs)
{
    double rgb[3], tick = 0.35 * fs, t[64], step, wmax = 0;
    char buf[64];
    for (double y = r->y0; y < r->y1; y++) {
        viridis((r->y1 - y - 0.5) / (r->y1 - r->y0), rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, r->x0, y, r->x1 - r->x0, 1);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    double top = max > 0 ? (double)max : 1;
    int n = colour_ticks(max, log, r->y1 - r->y0, fs, t, &step);
    for (int k = 0; k < n; k++) {
        double f = log ? (top > 1 ? log10(t[k]) / log10(top) : 1) : t[k] / top;
        double y = round(r->y1 - f * (r->y1 - r->y0)) + 0.5, x = r->x1 + tick + 0.35 * fs;
        cairo_move_to(cr, r->x1, y);
        cairo_line_to(cr, r->x1 + tick, y);
        cairo_stroke(cr);
        if (log) {
            snprintf(buf, sizeof buf, "%d", (int)round(log10(t[k])));
            text(cr, x, y, fs, 0, 0.5, "10");
            double w10 = text_width(cr, fs, "10");
            text(cr, x + w10, y - 0.45 * fs, 0.7 * fs, 0, 0.5, buf);
            wmax = fmax(wmax, w10 + text_width(cr, 0.7 * fs, buf));
        } else {
            tick_label(buf, sizeof buf, t[k], step);
            text(cr, x, y, fs, 0, 0.5, buf);
            wmax = fmax(wmax, text_width(cr, fs, buf));
        }
    }
    cairo_rectangle(cr, round(r->x0) + 0.5, round(r->y0) + 0.5, round(r->x1 - r->x0),
                    round(r->y1 - r->y0));
    cairo_stroke(cr);
    cairo_save(cr);
    cairo_translate(cr, r->x1 + tick + 0.7 * fs + wmax + 0.4 * fs, (r->y0 + r->y1) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, fs, 0.5, 0, log ? "count (log scale)" : "count");
    cairo_restore(cr);
}

/* The cells as an image at most one pixel per cell and per pixel of the
   axes (a pixel shows the largest count of its cells), row 0 at the top. */
static cairo_surface_t *heat_image(const heat *h, size_t w, size_t hgt, uint64_t max, int log)
{
    uint64_t *v = calloc(w * hgt, sizeof *v);
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)hgt);
    if (!v || cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        free(v);
        cairo_surface_destroy(img);
        return NULL;
    }
    for (size_t ix = 0; ix < h->nx; ix++)
        for (size_t iy = 0; iy < h->ny; iy++) {
            size_t px = ix * w / h->nx, py = hgt - 1 - iy * hgt / h->ny;
            uint64_t c = h->bins[ix * h->ny + iy];
            v[py * w + px] = c > v[py * w + px] ? c : v[py * w + px];
        }
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (size_t y = 0; y < hgt; y++)
        for (size_t x = 0; x < w; x++) {
            double f = colour_pos(v[y * w + x], max, log), rgb[3] = { 1, 1, 1 };
            if (f >= 0)
                viridis(f, rgb);
            uint32_t px = 0xff000000u | (uint32_t)lround(rgb[0] * 255) << 16 |
                          (uint32_t)lround(rgb[1] * 255) << 8 | (uint32_t)lround(rgb[2] * 255);
            memcpy(data + y * stride + 4 * x, &px, 4);
        }
    cairo_surface_mark_dirty(img);
    free(v);
    return img;
}

static int write_heat_map(const options *o, const heat *h)
{
    double fs;
    uint64_t max = 0;
    for (size_t i = 0; i < h->nx * h->ny; i++)
        max = h->bins[i] > max ? h->bins[i] : max;
    cairo_t *cr = figure_begin(o, h->title, &fs);
    if (!cr)
        return -1;
    limits l = { h->xlo, h->xhi, h->ylo, h->yhi, 0 };
    /* room for the y tick labels at the density draw_frame gives them */
    double t[64], step, room = 0;
    char buf[64];
    int nt = nice_ticks(l.ylo, l.yhi, (int)((o->height - 7.6 * fs) / (3.5 * fs)), t, 64, &step);
    for (int k = 0; k < nt; k++) {
        tick_label(buf, sizeof buf, t[k], step);
        room = fmax(room, text_width(cr, fs, buf));
    }
    double left = room + 2.6 * fs;
    double right = 1.5 * fs + 1.4 * fs + 0.7 * fs +
                   colour_label_room(cr, max, o->log, o->height - 7.6 * fs, fs) + 2.2 * fs;
    rect r = { round(left), round(2.8 * fs + 1.4 * fs), round(o->width - right),
               round(o->height - 3.4 * fs) };
    size_t w = (size_t)(r.x1 - r.x0), hgt = (size_t)(r.y1 - r.y0);
    w = w < h->nx ? w : h->nx;
    hgt = hgt < h->ny ? hgt : h->ny;
    cairo_surface_t *img = heat_image(h, w, hgt, max, o->log);
    if (!img) {
        fail("%s: no memory for a %zux%zu image", o->out, w, hgt);
        cairo_destroy(cr);
        return -1;
    }
    cairo_save(cr);
    cairo_translate(cr, r.x0, r.y0);
    cairo_scale(cr, (r.x1 - r.x0) / (double)w, (r.y1 - r.y0) / (double)hgt);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    draw_frame(cr, &r, &l, fs);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, (r.x0 + r.x1) / 2, o->height - 0.9 * fs, fs, 0.5, 1, "x");
    cairo_save(cr);
    cairo_translate(cr, 0.4 * fs, (r.y0 + r.y1) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, fs, 0.5, 0, "y");
    cairo_restore(cr);
    rect bar = { r.x1 + 1.5 * fs, r.y0, r.x1 + 2.9 * fs, r.y1 };
    draw_colour_bar(cr, &bar, max, o->log, fs);
    printf("%s: heat map axes at (%.0f, %.0f)-(%.0f, %.0f), x %.10g to %.10g, y %.10g to "
           "%.10g, colour 0 to %llu %s\n", o->out, r.x0, r.y0, r.x1, r.y1, l.xlo, l.xhi, l.ylo,
           l.yhi, (unsigned long long)max, o->log ? "log" : "linear");
    return figure_end(o, cr);
}
#else
static int write_chart(const options *o, const chart *c)
{
    (void)c;
    fail("%s: built without cairo, so -o cannot draw charts (install libcairo2-dev and run "
         "./configure again)", o->out);
    return -1;
}

static int write_heat_map(const options *o, const heat *h)
{
    (void)h;
    return write_chart(o, NULL);
}
#endif

/* 1234567 -> "1,234,567" */
static const char *grouped(uint64_t v, char *buf, size_t size)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), j = 0;
    for (int i = 0; i < n && (size_t)j + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = digits[i];
    }
    buf[j] = '\0';
    return buf;
}

/* ---- the two modes ---------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int image_mode(gpgpu_context *ctx, const options *o)
{
    static const char *names[4] = { "red", "green", "blue", "luminance" };
    /* matplotlib's tab:red, tab:green, tab:blue, tab:gray */
    static const unsigned colours[4] = { 0xd62728, 0x2ca02c, 0x1f77b4, 0x7f7f7f };
    size_t w, h;
    uint8_t *px = load_image(o->file, &w, &h);
    uint64_t *bins = px ? malloc(4 * o->nbins * sizeof *bins) : NULL;
    int rc = 1;
    if (px && !bins)
        fail("no memory for 4 x %zu bins", o->nbins);
    if (px && bins) {
        gpgpu_status st = gpgpu_histogram_rgba8(ctx, px, w, h, 4 * w, o->nbins, bins);
        if (st != GPGPU_SUCCESS) {
            fail("%s: %s", gpgpu_status_string(st), gpgpu_last_error(ctx));
        } else {
            printf("%s: %zux%zu pixels on %s\n", o->file, w, h, gpgpu_device_name(ctx));
            for (int c = 0; c < 4; c++)
                print_chart(names[c], bins + c * o->nbins, o->nbins, 0, 1);
            rc = 0;
            if (o->out) {
                series s[4];
                char title[512], count[32];
                for (int c = 0; c < 4; c++) {
                    s[c].name = names[c];
                    s[c].bins = bins + c * o->nbins;
                    set_rgb(s[c].rgb, colours[c]);
                }
                snprintf(title, sizeof title, "%s: %s pixels (%zu x %zu)", base_name(o->file),
                         grouped((uint64_t)w * h, count, sizeof count), w, h);
                chart c = { title, "level", 0, 256, o->nbins, s, 4 };
                rc = write_chart(o, &c) ? 1 : 0;
            }
        }
    }
    free(px);
    free(bins);
    return rc;
}

/* The samples of a raw file: a regular file whole, anything else up to
   STREAM_MAX bytes. NULL after a message. */
static void *read_samples(const char *path, size_t sample, size_t *n)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        fail("%s: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        fail("%s: is a directory", path);
        fclose(f);
        return NULL;
    }
    int regular = S_ISREG(st.st_mode);
    size_t cap = regular ? (size_t)st.st_size : STREAM_MAX + 1, got = 0;
    char *buf = malloc(cap ? cap : 1);
    if (!buf) {
        fail("%s: no memory for its %zu bytes", path, cap);
        fclose(f);
        return NULL;
    }
    size_t r;
    while (got < cap && (r = fread(buf + got, 1, cap - got, f)) > 0)
        got += r;
    int err = ferror(f);
    fclose(f);
    const char *why = NULL;
    char what[160];
    if (err)
        why = strerror(errno);
    else if (!regular && got > STREAM_MAX)
        why = "not a regular file, and longer than the 256 MiB read from a pipe or device "
              "(save it to a file first)";
    else if (regular && got != cap)
        why = "the file changed size while it was read";
    else if (got == 0)
        why = "no samples: the input is empty";
    else if (got % sample) {
        snprintf(what, sizeof what, "%zu bytes is not a whole number of %zu-byte samples "
                 "(%zu left over)", got, sample, got % sample);
        why = what;
    }
    if (why) {
        fail("%s: %s", path, why);
        free(buf);
        return NULL;
    }
    *n = got / sample;
    return buf;
}

static double sample(gpgpu_type t, const void *in, size_t i)
{
    switch (t) {
    case GPGPU_I32: return ((const int32_t *)in)[i];
    case GPGPU_U32: return ((const uint32_t *)in)[i];
    case GPGPU_F32: return ((const float *)in)[i];
    case GPGPU_I64: return (double)((const int64_t *)in)[i];
    case GPGPU_U64: return (double)((const uint64_t *)in)[i];
    default: return ((const double *)in)[i];
    }
}

/* Smallest to largest finite sample, hi just above the largest; all equal
   to x: [x - 0.5, x + 0.5), as NumPy does. -1 when no sample is finite. */
static int data_range(gpgpu_type t, const void *in, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = sample(t, in, i);
        if (isfinite(v)) {
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
    }
    if (*lo > *hi)
        return -1;
    if (*lo == *hi) {
        *lo -= 0.5;
        *hi += 0.5;
    } else {
        *hi = (t == GPGPU_F32 || t == GPGPU_F64) ? nextafter(*hi, INFINITY) : floor(*hi) + 1;
    }
    return 0;
}

static int parse_range(const char *r, double *lo, double *hi)
{
    char *end;
    errno = 0;
    *lo = strtod(r, &end);
    if (end != r && *end == ':') {
        const char *h = end + 1;
        *hi = strtod(h, &end);
        if (end != h && !*end && isfinite(*lo) && isfinite(*hi) && *lo < *hi)
            return 0;
    }
    fail("-r %s: need LO:HI, two finite numbers with LO < HI", r);
    return -1;
}

/* -t: the sample type, or -1 after a message. */
static int parse_type(const char *name, gpgpu_type *t)
{
    static const struct { const char *name; gpgpu_type t; } types[] = {
        { "i32", GPGPU_I32 }, { "u32", GPGPU_U32 }, { "f32", GPGPU_F32 },
        { "i64", GPGPU_I64 }, { "u64", GPGPU_U64 }, { "f64", GPGPU_F64 } };
    for (size_t i = 0; i < 6; i++)
        if (!strcmp(name, types[i].name)) {
            *t = types[i].t;
            return 0;
        }
    fail("-t %s: unknown type; one of i32 u32 f32 i64 u64 f64", name);
    return -1;
}

static int raw_mode(gpgpu_context *ctx, const options *o)
{
    gpgpu_type t = GPGPU_F32;
    int rc = 1;
    double lo = 0, hi = 0;
    size_t n;
    if (parse_type(o->type, &t) != 0)
        return 2;
    if (o->range && parse_range(o->range, &lo, &hi) != 0)
        return 2;
    void *in = read_samples(o->file, gpgpu_type_size(t), &n);
    if (!in)
        return 1;
    if (!o->range && data_range(t, in, n, &lo, &hi) != 0) {
        fail("%s: none of its %zu samples is a finite number; give -r LO:HI", o->file, n);
        free(in);
        return 1;
    }
    uint64_t *bins = malloc(o->nbins * sizeof *bins);
    if (!bins) {
        fail("no memory for %zu bins", o->nbins);
    } else {
        gpgpu_status st = gpgpu_histogram(ctx, t, in, n, o->nbins, lo, hi, bins);
        if (st != GPGPU_SUCCESS) {
            fail("%s: %s", gpgpu_status_string(st), gpgpu_last_error(ctx));
        } else {
            printf("%s: %zu %s samples on %s\n", o->file, n, o->type, gpgpu_device_name(ctx));
            print_chart(o->type, bins, o->nbins, lo, hi);
            rc = 0;
            if (o->out) {
                char title[512], count[32], name[64];
                snprintf(name, sizeof name, "%s samples", o->type);
                series s = { name, bins, { 0, 0, 0 } };
                set_rgb(s.rgb, 0x1f77b4); /* matplotlib's first colour */
                snprintf(title, sizeof title, "%s: %s %s samples", base_name(o->file),
                         grouped(n, count, sizeof count), o->type);
                chart c = { title, "value", lo, hi, o->nbins, &s, 1 };
                rc = write_chart(o, &c) ? 1 : 0;
            }
        }
    }
    free(in);
    free(bins);
    return rc;
}

/* ---- 2-D ---------------------------------------------------------------------- */

/* Stores v as element i of type t; -1 when t cannot hold it exactly. */
static int store(gpgpu_type t, void *out, size_t i, double v)
{
    switch (t) {
    case GPGPU_F32: ((float *)out)[i] = (float)v; return 0;
    case GPGPU_F64: ((double *)out)[i] = v; return 0;
    default: break;
    }
    static const double lim[][2] = { { -0x1p31, 0x1p31 }, { 0, 0x1p32 }, { 0, 0 },
                                     { -0x1p63, 0x1p63 }, { 0, 0x1p64 } };
    if (v != floor(v) || v < lim[t][0] || v >= lim[t][1])
        return -1;
    switch (t) {
    case GPGPU_I32: ((int32_t *)out)[i] = (int32_t)v; break;
    case GPGPU_U32: ((uint32_t *)out)[i] = (uint32_t)v; break;
    case GPGPU_I64: ((int64_t *)out)[i] = (int64_t)v; break;
    default: ((uint64_t *)out)[i] = (uint64_t)v; break;
    }
    return 0;
}

/* --columns: two numbers per line into x and y (malloc'd, n pairs); blank
   lines and lines starting with '#' are skipped. -1 after a message. */
static int read_columns(const char *path, const char *tname, gpgpu_type t, void **x, void **y,
                        size_t *n)
{
    size_t bytes, size = gpgpu_type_size(t), cap = 0, line = 0;
    int bad = 0;
    char *buf = read_samples(path, 1, &bytes), *text = buf ? malloc(bytes + 1) : NULL;
    *x = *y = NULL;
    *n = 0;
    if (!text) {
        if (buf)
            fail("%s: no memory for its %zu bytes", path, bytes);
        free(buf);
        return -1;
    }
    memcpy(text, buf, bytes);
    text[bytes] = '\0';
    free(buf);
    for (char *p = text, *next; *p; p = next) {
        char *eol = strchr(p, '\n'), *end;
        next = eol ? eol + 1 : p + strlen(p);
        if (eol)
            *eol = '\0';
        line++;
        p += strspn(p, " \t\r");
        if (!*p || *p == '#')
            continue;
        double a = strtod(p, &end), b = a;
        int ok = end != p;
        if (ok) {
            p = end;
            b = strtod(p, &end);
            ok = end != p && end[strspn(end, " \t\r")] == '\0';
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 4096;
            void *nx = realloc(*x, cap * size), *ny = nx ? realloc(*y, cap * size) : NULL;
            if (nx)
                *x = nx;
            if (ny)
                *y = ny;
            if (!nx || !ny) {
                fail("%s: no memory for %zu pairs", path, cap);
                bad = 1;
                break;
            }
        }
        if (!ok || store(t, *x, *n, a) || store(t, *y, *n, b)) {
            fail("%s:%zu: need two numbers (x y) that %s holds exactly", path, line, tname);
            bad = 1;
            break;
        }
        (*n)++;
    }
    free(text);
    if (bad || *n == 0) {
        if (!bad)
            fail("%s: no pairs", path);
        free(*x);
        free(*y);
        return -1;
    }
    return 0;
}

/* The pairs of a raw file, x first, into separate arrays. */
static int read_pairs(const char *path, const char *tname, gpgpu_type t, void **x, void **y,
                      size_t *n)
{
    (void)tname;
    size_t size = gpgpu_type_size(t);
    char *in = read_samples(path, 2 * size, n);
    *x = in ? malloc(*n * size) : NULL;
    *y = *x ? malloc(*n * size) : NULL;
    if (!*y) {
        if (in)
            fail("%s: no memory for %zu pairs", path, *n);
        free(in);
        free(*x);
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        memcpy((char *)*x + i * size, in + 2 * i * size, size);
        memcpy((char *)*y + i * size, in + (2 * i + 1) * size, size);
    }
    free(in);
    return 0;
}

/* A shade map of the cells, y up, at most 16 rows and 48 columns (a
   character shows the largest count of its cells). */
static void print_shades(const heat *h, int log)
{
    static const char shades[] = " .:-=+*#%@";
    size_t rows = h->ny < 16 ? h->ny : 16, cols = h->nx < 48 ? h->nx : 48;
    uint64_t v[16][48], max = 0, total = 0;
    memset(v, 0, sizeof v);
    for (size_t ix = 0; ix < h->nx; ix++)
        for (size_t iy = 0; iy < h->ny; iy++) {
            uint64_t c = h->bins[ix * h->ny + iy];
            size_t r = iy * rows / h->ny, k = ix * cols / h->nx;
            v[r][k] = c > v[r][k] ? c : v[r][k];
            max = c > max ? c : max;
            total += c;
        }
    printf("x: %zu bins over [%.15g, %.15g), y: %zu bins over [%.15g, %.15g), %llu counted, "
           "at most %llu in a cell\n", h->nx, h->xlo, h->xhi, h->ny, h->ylo, h->yhi,
           (unsigned long long)total, (unsigned long long)max);
    for (size_t r = rows; r-- > 0;) {
        printf("%12.5g |", h->ylo + (h->yhi - h->ylo) * (double)r / (double)rows);
        for (size_t k = 0; k < cols; k++) {
            uint64_t c = v[r][k];
            double f = !c || !max ? 0
                       : log  ? (max > 1 ? log10((double)c) / log10((double)max) : 1)
                              : (double)c / (double)max;
            putchar(c ? shades[1 + (int)(f * 8.999)] : ' ');
        }
        putchar('\n');
    }
    printf("%12s  %-24.6g%24.6g\n", "", h->xlo, h->xhi);
}

/* -r for --2d: LO:HI for both axes, or XLO:XHI,YLO:YHI. */
static int parse_range_2d(const char *r, double range[4])
{
    const char *comma = strchr(r, ',');
    if (!comma)
        return parse_range(r, &range[0], &range[1]) || parse_range(r, &range[2], &range[3]);
    char xr[256];
    snprintf(xr, sizeof xr, "%.*s", (int)(comma - r), r);
    return parse_range(xr, &range[0], &range[1]) || parse_range(comma + 1, &range[2], &range[3]);
}

static int raw2d_mode(gpgpu_context *ctx, const options *o)
{
    gpgpu_type t = GPGPU_F32;
    double range[4] = { 0, 0, 0, 0 };
    void *x, *y;
    size_t n;
    int rc = 1;
    if (parse_type(o->type, &t) != 0 || (o->range && parse_range_2d(o->range, range) != 0))
        return 2;
    if ((o->columns ? read_columns : read_pairs)(o->file, o->type, t, &x, &y, &n) != 0)
        return 1;
    if (!o->range && (data_range(t, x, n, &range[0], &range[1]) != 0 ||
                      data_range(t, y, n, &range[2], &range[3]) != 0)) {
        fail("%s: no finite x or no finite y among its %zu pairs; give -r", o->file, n);
        free(x);
        free(y);
        return 1;
    }
    uint64_t *bins = malloc(o->nbins * o->nbins_y * sizeof *bins);
    if (!bins) {
        fail("no memory for %zu x %zu bins", o->nbins, o->nbins_y);
    } else {
        gpgpu_status st = gpgpu_histogram2d(ctx, t, x, y, n, o->nbins, range[0], range[1],
                                            o->nbins_y, range[2], range[3], bins);
        if (st != GPGPU_SUCCESS) {
            fail("%s: %s", gpgpu_status_string(st), gpgpu_last_error(ctx));
        } else {
            char title[512], count[32];
            snprintf(title, sizeof title, "%s: %s (x, y) pairs of %s", base_name(o->file),
                     grouped(n, count, sizeof count), o->type);
            heat h = { title, bins, o->nbins, o->nbins_y, range[0], range[1], range[2],
                       range[3] };
            printf("%s: %zu %s pairs on %s\n", o->file, n, o->type, gpgpu_device_name(ctx));
            print_shades(&h, o->log);
            rc = o->out && write_heat_map(o, &h) ? 1 : 0;
        }
    }
    free(x);
    free(y);
    free(bins);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    gpgpu_context *ctx;
    if (parse_args(argc, argv, &o) != 0) {
        fputs("(gpgpu-histogram --help for usage)\n", stderr);
        return 2;
    }
    gpgpu_status st = gpgpu_context_create(&ctx, o.device);
    if (st != GPGPU_SUCCESS) {
        fail("%s: %s", gpgpu_status_string(st), gpgpu_last_error(NULL));
        return 1;
    }
    int rc = o.two_d ? raw2d_mode(ctx, &o) : o.type ? raw_mode(ctx, &o) : image_mode(ctx, &o);
    gpgpu_context_destroy(ctx);
    return rc;
}
