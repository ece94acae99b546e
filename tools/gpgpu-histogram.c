/*
 * gpgpu-histogram - histograms of an image (PNG, JPEG) or of a raw binary
 * file of samples, computed with libgpgpu and printed as a bar chart;
 * -o draws the image's R, G, B and luminance histograms as a PNG.
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#ifdef HAVE_JPEG
#include <jpeglib.h>
#endif

#include "gpgpu.h"

enum { CHART_ROWS = 32, CHART_WIDTH = 60, PLOT_H = 100 };

typedef struct {
    const char *device, *type, *range, *out, *file;
    size_t nbins;
} options;

static void usage(FILE *f)
{
    fputs("usage: gpgpu-histogram [-b BINS] [-d DEVICE] [-o PLOT.png] IMAGE.png|IMAGE.jpg\n"
          "       gpgpu-histogram -t TYPE [-r LO:HI] [-b BINS] [-d DEVICE] FILE.raw\n"
          "  -b BINS    number of bins (default 256)\n"
          "  -d DEVICE  as GPGPU_DEVICE: gpu, cpu, host, P:D or a name\n"
          "  -o FILE    draw the R, G, B and luminance histograms of an image as a PNG\n"
          "  -t TYPE    FILE holds raw native-endian samples: i32 u32 f32 i64 u64 f64\n"
          "  -r LO:HI   bin [LO, HI) (default: from the smallest to the largest sample)\n",
          f);
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->nbins = 256;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            o->file = a;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (i + 1 >= argc || strlen(a) != 2 || !strchr("bdort", a[1]))
            return -1;
        const char *v = argv[++i];
        switch (a[1]) {
        case 'b': o->nbins = strtoul(v, NULL, 10); break;
        case 'd': o->device = v; break;
        case 'o': o->out = v; break;
        case 'r': o->range = v; break;
        default: o->type = v; break;
        }
    }
    return o->file && o->nbins > 0 ? 0 : -1;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
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

/* ---- output ----------------------------------------------------------------- */

/* A terminal bar chart of bins, grouped into at most CHART_ROWS rows. */
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
    printf("%s: %zu bins over [%g, %g), %llu counted\n", title, nbins, lo, hi,
           (unsigned long long)total);
    for (size_t r = 0; r < rows; r++) {
        int len = max ? (int)((double)sums[r] / max * CHART_WIDTH + 0.5) : 0;
        printf("%12.5g |%.*s%*s %llu\n", lo + (hi - lo) * r * per / nbins, len,
               "############################################################",
               CHART_WIDTH - len, "", (unsigned long long)sums[r]);
    }
}

/* The seed's scale: the fullest bin reaches the top, unless that would
   squash the rest (then 20% of an even share does). */
static double plot_scale(const uint64_t *bins, size_t nbins, uint64_t entries)
{
    uint64_t max = 0;
    for (size_t i = 0; i < nbins; i++)
        max = bins[i] > max ? bins[i] : max;
    double a = max ? 1.0 / max : 0, b = entries ? 0.2 * nbins / entries : 0;
    return a > b ? a : b;
}

/* Four panels stacked: R, G, B, luminance; one column per bin (or bins
   spread over 256 columns), bars from the bottom of each panel. */
static int write_plot(const char *path, const uint64_t *bins, size_t nbins, uint64_t entries)
{
    static const uint8_t colour[4][3] = { { 230, 60, 60 }, { 60, 200, 60 },
                                          { 70, 110, 240 }, { 230, 230, 230 } };
    size_t width = nbins > 256 ? nbins : 256, height = 4 * (PLOT_H + 4);
    uint8_t *px = calloc(width * height, 3);
    if (!px)
        return -1;
    for (int c = 0; c < 4; c++) {
        const uint64_t *h = bins + c * nbins;
        double scale = plot_scale(h, nbins, entries);
        size_t top = c * (PLOT_H + 4);
        for (size_t x = 0; x < width; x++) {
            double v = h[x * nbins / width] * scale;
            size_t bar = (size_t)(fmin(v, 1.0) * PLOT_H + 0.5);
            for (size_t y = 0; y < PLOT_H; y++) {
                uint8_t *p = px + ((top + y) * width + x) * 3;
                int on = PLOT_H - y <= bar;
                for (int k = 0; k < 3; k++)
                    p[k] = on ? colour[c][k] : 24;
            }
        }
    }
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)width;
    img.height = (png_uint_32)height;
    img.format = PNG_FORMAT_RGB;
    int ok = png_image_write_to_file(&img, path, 0, px, 0, NULL);
    if (!ok)
        fprintf(stderr, "gpgpu-histogram: %s: %s\n", path, img.message);
    free(px);
    return ok ? 0 : -1;
}

/* ---- the two modes ---------------------------------------------------------- */

static int image_mode(gpgpu_context *ctx, const options *o)
{
    static const char *names[4] = { "red", "green", "blue", "luminance" };
    size_t w, h;
    uint8_t *px = load_image(o->file, &w, &h);
    uint64_t *bins = malloc(4 * o->nbins * sizeof *bins);
    int rc = 1;
    if (px && bins) {
        gpgpu_status st = gpgpu_histogram_rgba8(ctx, px, w, h, 4 * w, o->nbins, bins);
        if (st != GPGPU_SUCCESS) {
            fprintf(stderr, "gpgpu-histogram: %s: %s\n", gpgpu_status_string(st),
                    gpgpu_last_error(ctx));
        } else {
            printf("%s: %zux%zu pixels on %s\n", o->file, w, h, gpgpu_device_name(ctx));
            for (int c = 0; c < 4; c++)
                print_chart(names[c], bins + c * o->nbins, o->nbins, 0, 1);
            rc = o->out && write_plot(o->out, bins, o->nbins, (uint64_t)w * h) ? 1 : 0;
        }
    }
    free(px);
    free(bins);
    return rc;
}

static void *read_file(const char *path, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    if (!f) {
        fprintf(stderr, "gpgpu-histogram: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    do {
        if (n == cap) {
            char *bigger = realloc(buf, cap = cap ? 2 * cap : 1 << 20);
            if (!bigger) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = bigger;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *bytes = n;
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

/* Smallest to largest finite sample, hi just above the largest. */
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
    *hi = (t == GPGPU_F32 || t == GPGPU_F64) ? nextafter(*hi, INFINITY) : floor(*hi) + 1;
    return 0;
}

static int raw_mode(gpgpu_context *ctx, const options *o)
{
    static const struct { const char *name; gpgpu_type t; } types[] = {
        { "i32", GPGPU_I32 }, { "u32", GPGPU_U32 }, { "f32", GPGPU_F32 },
        { "i64", GPGPU_I64 }, { "u64", GPGPU_U64 }, { "f64", GPGPU_F64 } };
    gpgpu_type t = GPGPU_F32;
    int found = 0, rc = 1;
    double lo, hi;
    size_t bytes;
    for (size_t i = 0; i < 6; i++)
        if (!strcmp(o->type, types[i].name)) {
            t = types[i].t;
            found = 1;
        }
    if (!found) {
        fprintf(stderr, "gpgpu-histogram: unknown type %s\n", o->type);
        return 2;
    }
    void *in = read_file(o->file, &bytes);
    size_t n = bytes / gpgpu_type_size(t);
    uint64_t *bins = malloc(o->nbins * sizeof *bins);
    if (in && bins) {
        if (o->range ? sscanf(o->range, "%lf:%lf", &lo, &hi) != 2
                     : data_range(t, in, n, &lo, &hi) != 0) {
            fprintf(stderr, "gpgpu-histogram: no range (give -r LO:HI)\n");
        } else {
            gpgpu_status st = gpgpu_histogram(ctx, t, in, n, o->nbins, lo, hi, bins);
            if (st != GPGPU_SUCCESS) {
                fprintf(stderr, "gpgpu-histogram: %s: %s\n", gpgpu_status_string(st),
                        gpgpu_last_error(ctx));
            } else {
                printf("%s: %zu %s samples on %s\n", o->file, n, o->type,
                       gpgpu_device_name(ctx));
                print_chart(o->type, bins, o->nbins, lo, hi);
                rc = 0;
            }
        }
    }
    free(in);
    free(bins);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    gpgpu_context *ctx;
    if (parse_args(argc, argv, &o) != 0) {
        usage(stderr);
        return 2;
    }
    gpgpu_status st = gpgpu_context_create(&ctx, o.device);
    if (st != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu-histogram: %s: %s\n", gpgpu_status_string(st),
                gpgpu_last_error(NULL));
        return 1;
    }
    int rc = o.type ? raw_mode(ctx, &o) : image_mode(ctx, &o);
    gpgpu_context_destroy(ctx);
    return rc;
}
