/* plot_check.c - reads back a chart that gpgpu-histogram -o drew, for
   tests/histogram-tool.sh:

     plot_check CHART.png WIDTH HEIGHT REPORT NAME:RRGGBB:VALUE:COUNT...

   checks the picture's size, then for each series NAME finds in REPORT (the
   tool's output) where it drew NAME's axes and its limits, and checks that
   the bar of COUNT at VALUE (the tallest, in data units) stands there in
   colour RRGGBB: inside the bar near its top and near its base, and not
   just above its top. Exit status 0 when all hold; else a message. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

static int failed;

static void complain(const char *what, const char *detail)
{
    fprintf(stderr, "plot_check: %s: %s\n", what, detail);
    failed = 1;
}

/* The pixel (x, y) as 0xRRGGBB. */
static unsigned long pixel(cairo_surface_t *s, int x, int y)
{
    const unsigned char *row = cairo_image_surface_get_data(s) +
                               (size_t)y * cairo_image_surface_get_stride(s);
    uint32_t v;
    memcpy(&v, row + 4 * x, 4);
    return v & 0xffffff;
}

typedef struct {
    double x0, y0, x1, y1, xlo, xhi, ylo, yhi;
    int log;
} axes;

/* The line "CHART: NAME axes at (x0, y0)-(x1, y1), x A to B, y C to D SCALE". */
static int find_axes(const char *report, const char *chart, const char *name, axes *a)
{
    FILE *f = fopen(report, "r");
    char line[1024], head[600], scale[16];
    int found = 0;
    snprintf(head, sizeof head, "%s: %s axes at ", chart, name);
    while (f && !found && fgets(line, sizeof line, f))
        if (!strncmp(line, head, strlen(head)) &&
            sscanf(line + strlen(head), "(%lf, %lf)-(%lf, %lf), x %lf to %lf, y %lf to %lf %15s",
                   &a->x0, &a->y0, &a->x1, &a->y1, &a->xlo, &a->xhi, &a->ylo, &a->yhi,
                   scale) == 9) {
            a->log = !strcmp(scale, "log");
            found = 1;
        }
    if (f)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fputs("usage: plot_check CHART.png WIDTH HEIGHT REPORT NAME:RRGGBB:VALUE:COUNT...\n",
              stderr);
        return 2;
    }
    cairo_surface_t *s = cairo_image_surface_create_from_png(argv[1]);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        complain(argv[1], cairo_status_to_string(cairo_surface_status(s)));
        return 1;
    }
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    char detail[512];
    if (w != atoi(argv[2]) || h != atoi(argv[3])) {
        snprintf(detail, sizeof detail, "%dx%d, not %sx%s", w, h, argv[2], argv[3]);
        complain(argv[1], detail);
    }
    cairo_surface_flush(s);
    for (int k = 5; k < argc; k++) {
        char name[256];
        unsigned long rgb;
        double value, count;
        axes a;
        const char *spec = argv[k], *colon = strchr(spec, ':');
        if (!colon || (size_t)(colon - spec) >= sizeof name ||
            sscanf(colon, ":%6lx:%lf:%lf", &rgb, &value, &count) != 3) {
            complain(spec, "not NAME:RRGGBB:VALUE:COUNT");
            continue;
        }
        memcpy(name, spec, colon - spec);
        name[colon - spec] = '\0';
        if (!find_axes(argv[4], argv[1], name, &a)) {
            complain(name, "no such axes in the report");
            continue;
        }
        double fy = a.log ? (log10(count) - log10(a.ylo)) / (log10(a.yhi) - log10(a.ylo))
                          : (count - a.ylo) / (a.yhi - a.ylo);
        int x = (int)lround(a.x0 + (value - a.xlo) / (a.xhi - a.xlo) * (a.x1 - a.x0));
        int top = (int)lround(a.y1 - fy * (a.y1 - a.y0));
        const struct { int y, want; const char *where; } probes[] = {
            { top + 3, 1, "just below the top of the bar" },
            { (int)a.y1 - 3, 1, "at the base of the bar" },
            { top - 4, 0, "just above the top of the bar" } };
        for (int p = 0; p < 3; p++) {
            int y = probes[p].y;
            if (x < 0 || x >= w || y < 0 || y >= h) {
                snprintf(detail, sizeof detail, "(%d, %d) is outside the picture", x, y);
                complain(name, detail);
                continue;
            }
            unsigned long got = pixel(s, x, y);
            if ((got == rgb) != probes[p].want) {
                snprintf(detail, sizeof detail, "pixel (%d, %d) %s is #%06lx; want %s#%06lx",
                         x, y, probes[p].where, got, probes[p].want ? "" : "anything but ", rgb);
                complain(name, detail);
            }
        }
    }
    cairo_surface_destroy(s);
    return failed;
}
