/* mkman.c - writes a section-3 manual page for every GPGPU_API function of
   the headers it reads, made of the doc comment before the declaration, so
   that the pages never say other than the headers do.

   Usage: gpgpu-mkman -o DIR -v VERSION [-t TEMPLATE.7.in] HEADER...

   For each function it writes DIR/NAME.3 and prints NAME.3 on stdout:
     NAME         the name and the comment's first clause;
     LIBRARY      libgpgpu, or libgpgpu-mpi for a header named *mpi*;
     SYNOPSIS     the #include line and the prototype as the header has it;
     DESCRIPTION  the comment, less its error list and "Since X.Y.";
     RETURN VALUE GPGPU_SUCCESS and every status the comment names:
                  "Errors: STATUS (why), ..., those of gpgpu_X", or
                  "Errors as gpgpu_X[ (note)][, plus ...]"; a comment with
                  neither takes the statuses of the function it starts with
                  ("gpgpu_sort of the whole array ...") or of its family's
                  host form (gpgpu_sort for gpgpu_sort_buffer); functions
                  that return something else are described from the comment;
     NOTES        the header's comment blocks that cover the function's
                  section (after a "/ * Title * /" banner) and the header's
                  conventions (its first comment, from "Conventions");
     HISTORY      from "Since X.Y.";
     SEE ALSO     the same family (gpgpu_sort, gpgpu_sort_pairs, their
                  _array, _buffer, _init and mpi forms), the functions the
                  comment names, and gpgpu(7).
   Indented blocks of a comment stay as they are, unless they are tables
   ("term  text" lines), which become tagged paragraphs. Roff's specials are
   escaped: a leading dot or quote, backslashes, and '-' where it is not a
   hyphen inside a word.
   Functions declared one after another under one comment share a page: the
   first gets it, the others a ".so" link to it.
   With -t, TEMPLATE.7.in becomes DIR/gpgpu.7 with @VERSION@ replaced and the
   lines @GPGPU_FAMILIES@ and @GPGPU_STATUSES@ replaced by the list of the
   functions by family and the list of status codes. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
} sb;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "mkman: out of memory\n");
        exit(1);
    }
    return p;
}

static void sb_addn(sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1) + 64;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void sb_add(sb *b, const char *s) { sb_addn(b, s, strlen(s)); }
static void sb_addc(sb *b, char c) { sb_addn(b, &c, 1); }

/* s[0 .. e) as literal roff text: hyphens as \-, backslashes as \e. */
static void sb_add_literal(sb *b, const char *s, const char *e)
{
    for (; s < e; s++) {
        if (*s == '-')
            sb_add(b, "\\-");
        else if (*s == '\\')
            sb_add(b, "\\e");
        else
            sb_addc(b, *s);
    }
}

static void sb_printf(sb *b, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_add(b, tmp);
}

static char *sb_take(sb *b)
{
    if (!b->s)
        sb_add(b, "");
    char *s = b->s;
    b->s = NULL;
    b->n = b->cap = 0;
    return s;
}

static char *xstrndup(const char *s, size_t n)
{
    char *r = xrealloc(NULL, n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

/* s without leading and trailing blanks, in new memory */
static char *trimn(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return xstrndup(s, n);
}

static char *trim(const char *s) { return trimn(s, strlen(s)); }

static int is_ident(int c) { return isalnum(c) || c == '_'; }

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* ---- what the headers hold ---------------------------------------------- */

enum { PARA, BULLET, PRE };

typedef struct {
    int kind;
    char *text;   /* PARA, BULLET: the prose on one line; PRE: lines with '\n' */
} block;

typedef struct {
    block *b;
    int n;
} blocks;

typedef struct {
    char *name, *text;
} status_t;

typedef struct {
    char *type, *name, *suffix; /* "const cl_event *", "wait", "" */
} param;

typedef struct {
    char *path, *base, *lib;
    blocks conventions;
} header;

typedef struct {
    char *title;
    blocks intro;   /* blocks before the section's first function */
    int seen_func;
} section;

#define MAXST 32

typedef struct {
    char *name, *ret, *decl;
    param *p;
    int np;
    int hdr, sec, leader;     /* leader: first function under the same comment */
    blocks *doc;              /* the comment, NULL if none */
    blocks *current;          /* the section's block in force, or NULL */
    /* from the comment */
    blocks desc;              /* DESCRIPTION */
    char *summary, *since, *errclause;
    sb remarks;               /* sentences about failure */
    /* the statuses */
    int state;                /* 0 not resolved, 1 resolving, 2 done */
    int has[MAXST];
    char *reason[MAXST];
    char *inherit, *inherit_note, *qual;
    int unknown;
} func;

static status_t st[MAXST];
static int nst;
static header hdrs[8];
static int nhdr;
static section *secs;
static int nsec;
static func *fn;
static int nfn;

static func *find_func(const char *name, size_t n)
{
    for (int i = 0; i < nfn; i++)
        if (strlen(fn[i].name) == n && strncmp(fn[i].name, name, n) == 0)
            return &fn[i];
    return NULL;
}

/* the status a word names: GPGPU_ERROR_X, GPGPU_X or X; -1 if none */
static int status_of(const char *w, size_t n)
{
    for (int i = 0; i < nst; i++) {
        const char *s = st[i].name;
        size_t l = strlen(s);
        if (l == n && strncmp(s, w, n) == 0)
            return i;
        if (starts(s, "GPGPU_ERROR_") && l - 12 == n && strncmp(s + 12, w, n) == 0)
            return i;
        if (starts(s, "GPGPU_") && l - 6 == n && strncmp(s + 6, w, n) == 0)
            return i;
    }
    return -1;
}

static int status_named(const char *name)
{
    return status_of(name, strlen(name));
}

/* ---- comments to blocks --------------------------------------------------- */

static void add_block(blocks *bs, int kind, const char *text)
{
    bs->b = xrealloc(bs->b, (bs->n + 1) * sizeof *bs->b);
    bs->b[bs->n].kind = kind;
    bs->b[bs->n].text = xstrdup(text);
    bs->n++;
}

/* The comment's lines without their " * " margin: a line's indentation past
   the margin is kept (lists, tables), a line with no '*' loses it. */
static char **comment_lines(const char *c, size_t len, int *nlines)
{
    char **l = NULL;
    int n = 0;
    const char *e = c + len;
    while (c < e) {
        const char *nl = memchr(c, '\n', (size_t)(e - c));
        const char *end = nl ? nl : e;
        const char *s = c;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s < end && *s == '*' && (s + 1 == end || s[1] == ' '))
            s += (s + 1 == end) ? 1 : 2;
        size_t m = (size_t)(end - s);
        while (m && isspace((unsigned char)s[m - 1]))
            m--;
        l = xrealloc(l, (n + 1) * sizeof *l);
        l[n++] = xstrndup(s, m);
        c = nl ? nl + 1 : e;
    }
    while (n && !l[n - 1][0])
        free(l[--n]);
    int skip = 0;
    while (skip < n && !l[skip][0])
        free(l[skip++]);
    memmove(l, l + skip, (n - skip) * sizeof *l);
    *nlines = n - skip;
    return l;
}

static blocks *lines_to_blocks(char **l, int n)
{
    blocks *bs = xrealloc(NULL, sizeof *bs);
    bs->b = NULL;
    bs->n = 0;
    sb cur = {0};
    int kind = -1, bullet_indent = 0;
#define FLUSH() do { if (kind >= 0) add_block(bs, kind, cur.s ? cur.s : ""); \
                     cur.n = 0; if (cur.s) cur.s[0] = '\0'; kind = -1; } while (0)
    for (int i = 0; i < n; i++) {
        const char *s = l[i];
        int ind = 0;
        while (s[ind] == ' ')
            ind++;
        const char *t = s + ind;
        if (!*t) {
            FLUSH();
            continue;
        }
        if (t[0] == '-' && t[1] == ' ' && ind <= 3) {
            FLUSH();
            kind = BULLET;
            bullet_indent = ind;
            sb_add(&cur, t + 2);
        } else if (kind == BULLET && ind > bullet_indent) {
            sb_addc(&cur, ' ');
            sb_add(&cur, t);
        } else if (ind >= 2) {
            if (kind != PRE)
                FLUSH();
            kind = PRE;
            sb_add(&cur, s);
            sb_addc(&cur, '\n');
        } else {
            if (kind != PARA)
                FLUSH();
            if (kind == PARA)
                sb_addc(&cur, ' ');
            kind = PARA;
            sb_add(&cur, t);
        }
    }
    FLUSH();
#undef FLUSH
    free(cur.s);
    return bs;
}

/* ---- sentences ------------------------------------------------------------- */

/* Whether s[i] == '.' ends a sentence: followed by a blank or the end, not
   part of "..." or of "e.g."/"i.e."/"etc.". */
static int sentence_dot(const char *s, size_t i)
{
    if (s[i] != '.')
        return 0;
    if (s[i + 1] && s[i + 1] != ' ')
        return 0;
    if (i > 0 && s[i - 1] == '.')
        return 0;
    if (i >= 3 && (strncmp(s + i - 3, "e.g", 3) == 0 || strncmp(s + i - 3, "i.e", 3) == 0 ||
                   strncmp(s + i - 3, "etc", 3) == 0))
        return 0;
    return 1;
}

/* The end (one past the '.') of the sentence that starts at from, out of
   parentheses; strlen(s) if it runs to the end. */
static size_t sentence_end(const char *s, size_t from)
{
    int depth = 0;
    for (size_t i = from; s[i]; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && depth > 0)
            depth--;
        else if (depth == 0 && sentence_dot(s, i))
            return i + 1;
    }
    return strlen(s);
}

static size_t skip_blanks(const char *s, size_t i)
{
    while (s[i] == ' ')
        i++;
    return i;
}

/* ---- reading a header ------------------------------------------------------ */

static void parse_status_list(const char *d)
{
    const char *p = d;
    while ((p = strstr(p, "X(")) != NULL) {
        if (p > d && is_ident((unsigned char)p[-1])) {
            p += 2;
            continue;
        }
        p += 2;
        const char *a = p;
        while (is_ident((unsigned char)*p))
            p++;
        if (p == a || !starts(a, "GPGPU_"))
            continue;
        char *name = xstrndup(a, (size_t)(p - a));
        const char *q = strchr(p, '"');
        const char *r = q ? strchr(q + 1, '"') : NULL;
        if (!r || nst == MAXST || status_named(name) >= 0) {
            free(name);
            continue;
        }
        st[nst].name = name;
        st[nst].text = xstrndup(q + 1, (size_t)(r - q - 1));
        nst++;
        p = r + 1;
    }
}

static char *collapse(const char *s)
{
    sb b = {0};
    int sp = 0;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) {
            sp = 1;
            continue;
        }
        if (sp && b.n && b.s[b.n - 1] != '(' && *s != ')' && *s != ',')
            sb_addc(&b, ' ');
        sp = 0;
        sb_addc(&b, *s);
    }
    return sb_take(&b);
}

static void parse_params(func *f, const char *a, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int depth = 0;
        size_t j = i;
        while (j < n && !(depth == 0 && a[j] == ',')) {
            if (a[j] == '(' || a[j] == '[')
                depth++;
            else if (a[j] == ')' || a[j] == ']')
                depth--;
            j++;
        }
        char *p = trimn(a + i, j - i);
        i = j + 1;
        if (!*p || (strcmp(p, "void") == 0 && f->np == 0 && i >= n)) {
            free(p);
            continue;
        }
        f->p = xrealloc(f->p, (f->np + 1) * sizeof *f->p);
        param *q = &f->p[f->np++];
        size_t end = strlen(p);
        char *br = strchr(p, '[');
        if (br)
            end = (size_t)(br - p);
        size_t k = end;
        while (k && is_ident((unsigned char)p[k - 1]))
            k--;
        if (k == 0 || strchr(p, '(')) { /* no name, or a function pointer */
            q->type = p;
            q->name = xstrdup("");
            q->suffix = xstrdup("");
        } else {
            q->type = xstrndup(p, k);
            q->name = xstrndup(p + k, end - k);
            q->suffix = xstrdup(p + end);
            free(p);
        }
    }
}

static void new_section(const char *title)
{
    secs = xrealloc(secs, (nsec + 1) * sizeof *secs);
    secs[nsec].title = title ? xstrdup(title) : NULL;
    secs[nsec].intro.b = NULL;
    secs[nsec].intro.n = 0;
    secs[nsec].seen_func = 0;
    nsec++;
}

static blocks *current_block;

/* a multi-line comment that is not a function's covers the functions after
   it: all of its section when no function came before it, else those up to
   the next such block */
static void context_block(blocks *bs, int nlines)
{
    if (nlines < 2 || !bs->n)
        return;
    section *s = &secs[nsec - 1];
    if (!s->seen_func) {
        for (int i = 0; i < bs->n; i++)
            add_block(&s->intro, bs->b[i].kind, bs->b[i].text);
    } else {
        current_block = bs;
    }
}

static void read_header(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        perror(path);
        exit(1);
    }
    sb file = {0};
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        sb_addn(&file, buf, got);
    fclose(in);
    const char *s = file.s ? file.s : "";

    header *h = &hdrs[nhdr++];
    h->path = xstrdup(path);
    const char *slash = strrchr(path, '/');
    h->base = xstrdup(slash ? slash + 1 : path);
    h->lib = xstrdup(strstr(h->base, "mpi") ? "gpgpu-mpi" : "gpgpu");
    h->conventions.b = NULL;
    h->conventions.n = 0;
    new_section(NULL);
    current_block = NULL;

    sb stmt = {0};
    int depth = 0, seen_code = 0, seen_comment = 0, rule = 0, last_func = -1;
    blocks *pending = NULL;
    int pending_lines = 0;
    size_t i = 0, n = strlen(s);
    int line_start = 1;
    while (i < n) {
        char c = s[i];
        if (c == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            size_t end = e ? (size_t)(e - s) : n;
            int doc = s[i + 2] == '*' && s[i + 3] != '/';
            size_t from = i + (doc ? 3 : 2);
            i = e ? end + 2 : n;
            if (stmt.n || depth)
                continue; /* a field's comment */
            int nl;
            char **l = comment_lines(s + from, end - from, &nl);
            blocks *bs = lines_to_blocks(l, nl);
            if (!seen_code && !seen_comment) {
                /* the header's own comment: its conventions */
                int k = 1;
                for (int j = 1; j < bs->n; j++)
                    if (bs->b[j].kind == PARA && starts(bs->b[j].text, "Conventions")) {
                        k = j + 1;
                        break;
                    }
                for (; k < bs->n; k++)
                    add_block(&h->conventions, bs->b[k].kind, bs->b[k].text);
            } else if (doc) {
                if (pending)
                    context_block(pending, pending_lines);
                pending = bs;
                pending_lines = nl;
            } else {
                int dashes = nl == 1 && l[0][0] && strspn(l[0], "-") == strlen(l[0]);
                if (dashes) {
                    rule = 1;
                } else if (nl == 1 && rule) {
                    char *t = xstrndup(l[0], strcspn(l[0], "."));
                    new_section(t);
                    free(t);
                    current_block = NULL;
                    rule = 0;
                } else {
                    context_block(bs, nl);
                    rule = 0;
                }
                last_func = -1;
            }
            seen_comment = 1;
            continue;
        }
        if (c == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '\n') {
            line_start = 1;
            if (stmt.n)
                sb_addc(&stmt, ' ');
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            if (stmt.n)
                sb_addc(&stmt, ' ');
            i++;
            continue;
        }
        if (c == '#' && line_start && !stmt.n) {
            sb d = {0};
            while (i < n && s[i] != '\n') {
                if (s[i] == '\\' && s[i + 1] == '\n') {
                    i += 2;
                    continue;
                }
                sb_addc(&d, s[i++]);
            }
            parse_status_list(d.s);
            free(d.s);
            seen_code = 1;
            continue;
        }
        line_start = 0;
        seen_code = 1;
        i++;
        if (c == '{') {
            char *t = trim(stmt.s ? stmt.s : "");
            int ext = strcmp(t, "extern \"C\"") == 0;
            free(t);
            if (ext) {
                stmt.n = 0;
                stmt.s[0] = '\0';
                continue;
            }
            depth++;
        } else if (c == '}') {
            if (depth == 0)
                continue; /* the end of extern "C" */
            depth--;
        }
        sb_addc(&stmt, c);
        if (c != ';' || depth)
            continue;
        char *t = collapse(stmt.s);
        stmt.n = 0;
        stmt.s[0] = '\0';
        if (starts(t, "GPGPU_API ")) {
            const char *decl = t + 10;
            const char *op = strchr(decl, '(');
            const char *cp = op ? strrchr(decl, ')') : NULL;
            if (!op || !cp) {
                free(t);
                continue;
            }
            const char *ne = op;
            while (ne > decl && ne[-1] == ' ')
                ne--;
            const char *nb = ne;
            while (nb > decl && is_ident((unsigned char)nb[-1]))
                nb--;
            fn = xrealloc(fn, (nfn + 1) * sizeof *fn);
            func *f = &fn[nfn];
            memset(f, 0, sizeof *f);
            f->name = xstrndup(nb, (size_t)(ne - nb));
            f->ret = trimn(decl, (size_t)(nb - decl));
            f->decl = xstrdup(decl);
            parse_params(f, op + 1, (size_t)(cp - op - 1));
            f->hdr = nhdr - 1;
            f->sec = nsec - 1;
            f->current = current_block;
            if (pending) {
                f->doc = pending;
                f->leader = nfn;
            } else if (last_func >= 0) {
                f->doc = fn[last_func].doc;
                f->leader = fn[last_func].leader;
            } else {
                f->leader = nfn;
                fprintf(stderr, "mkman: %s: %s has no comment\n", path, f->name);
            }
            pending = NULL;
            secs[nsec - 1].seen_func = 1;
            last_func = nfn++;
        } else {
            if (pending)
                context_block(pending, pending_lines);
            pending = NULL;
            last_func = -1;
        }
        free(t);
    }
    free(stmt.s);
    free(file.s);
}

/* ---- a function's comment: description, errors, history ------------------- */

/* the closing parenthesis that matches s[i] == '(' */
static size_t match_paren(const char *s, size_t i)
{
    int depth = 0;
    for (; s[i]; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && --depth == 0)
            return i;
    }
    return i;
}

static char *first_clause(const char *s0)
{
    /* a parenthesis in the first few words ("*result (one element of p's
       type) = ...") is left out */
    char *s = xstrdup(s0);
    const char *po = strstr(s, " (");
    if (po && po - s < 24) {
        size_t c = match_paren(s, (size_t)(po - s) + 1);
        if (s[c])
            memmove(s + (po - s), s + c + 1, strlen(s + c + 1) + 1);
    }
    size_t e = sentence_end(s, 0);
    size_t cut = e;
    const char *stops[] = {" (", ": ", "; "};
    for (int k = 0; k < 3; k++) {
        const char *p = strstr(s, stops[k]);
        if (p && (size_t)(p - s) < cut && p > s)
            cut = (size_t)(p - s);
    }
    char *r = trimn(s, cut);
    size_t l = strlen(r);
    if (l && r[l - 1] == '.')
        r[--l] = '\0';
    if (l > 90) {
        char *c = r + 90;
        while (c > r && strncmp(c, ", ", 2) != 0)
            c--;
        if (c > r)
            *c = '\0';
    }
    if (isupper((unsigned char)r[0]) && (islower((unsigned char)r[1]) || r[1] == ' '))
        r[0] = (char)tolower((unsigned char)r[0]);
    free(s);
    return r;
}

static void add_remark(func *f, const char *s, size_t n)
{
    char *t = trimn(s, n);
    if (*t) {
        if (f->remarks.n)
            sb_addc(&f->remarks, ' ');
        t[0] = (char)toupper((unsigned char)t[0]);
        sb_add(&f->remarks, t);
        if (t[strlen(t) - 1] != '.')
            sb_addc(&f->remarks, '.');
    }
    free(t);
}

/* Splits f's comment: "Since X.Y." to since, "Errors..." to errclause and the
   sentences on failure after it to remarks, the rest to desc. */
static void split_comment(func *f)
{
    if (!f->doc)
        return;
    for (int k = 0; k < f->doc->n; k++) {
        block *b = &f->doc->b[k];
        if (b->kind != PARA) {
            add_block(&f->desc, b->kind, b->text);
            continue;
        }
        const char *s = b->text;
        if (!f->summary)
            f->summary = first_clause(s);
        sb keep = {0};
        size_t i = 0;
        int after_errors = 0;
        while (s[i]) {
            i = skip_blanks(s, i);
            if (!s[i])
                break;
            size_t e = sentence_end(s, i);
            char *sent = xstrndup(s + i, e - i);
            unsigned maj, min;
            char dot;
            const char *err = NULL;
            for (const char *p = sent; (p = strstr(p, "Errors")) != NULL; p += 6)
                if ((p == sent || p[-1] == ' ') && (p[6] == ':' || starts(p + 6, " as "))) {
                    err = p;
                    break;
                }
            if (sscanf(sent, "Since %u.%u%c", &maj, &min, &dot) == 3 && dot == '.') {
                free(f->since);
                f->since = trimn(sent + 6, strlen(sent) - 7);
            } else if (err && !f->errclause) {
                /* the clause ends at ';' or the sentence's end, out of
                   parentheses */
                size_t a = (size_t)(err - sent), j = a;
                int depth = 0;
                for (; sent[j]; j++) {
                    if (sent[j] == '(')
                        depth++;
                    else if (sent[j] == ')' && depth > 0)
                        depth--;
                    else if (depth == 0 && (sent[j] == ';' || sentence_dot(sent, j)))
                        break;
                }
                f->errclause = xstrndup(sent + a, j - a);
                if (sent[j] == ';')
                    add_remark(f, sent + j + 1, strlen(sent + j + 1));
                if (a) {
                    char *pre = trimn(sent, a);
                    if (keep.n)
                        sb_addc(&keep, ' ');
                    sb_add(&keep, pre);
                    free(pre);
                }
                after_errors = 1;
            } else if (after_errors && strstr(sent, "fail")) {
                add_remark(f, sent, strlen(sent));
            } else {
                if (keep.n)
                    sb_addc(&keep, ' ');
                sb_add(&keep, sent);
            }
            free(sent);
            i = e;
        }
        if (keep.n)
            add_block(&f->desc, PARA, keep.s);
        free(keep.s);
    }
    if (!f->summary)
        f->summary = xstrdup(f->name);
    /* "gpgpu_unique: ..." says which call this is a form of */
    size_t l = strlen(f->name);
    if (starts(f->summary, "gpgpu_") && strspn(f->summary, "abcdefghijklmnopqrstuvwxyz_0123456789") ==
                                            strlen(f->summary)) {
        const char *how = l > 6 && strcmp(f->name + l - 6, "_array") == 0     ? " of device arrays"
                          : l > 7 && strcmp(f->name + l - 7, "_buffer") == 0 ? " on OpenCL buffers"
                          : starts(f->name, "gpgpu_mpi_")                      ? " over MPI ranks"
                                                                               : "";
        sb b = {0};
        sb_add(&b, f->summary);
        sb_add(&b, how);
        free(f->summary);
        f->summary = sb_take(&b);
    }
}

static void add_reason(func *f, int k, const char *r)
{
    f->has[k] = 1;
    if (!r || !*r)
        return;
    if (!f->reason[k]) {
        f->reason[k] = xstrdup(r);
        return;
    }
    if (strstr(f->reason[k], r))
        return; /* said already */
    sb b = {0};
    sb_add(&b, f->reason[k]);
    sb_add(&b, "; ");
    sb_add(&b, r);
    free(f->reason[k]);
    f->reason[k] = sb_take(&b);
}

static void resolve(func *f);

/* every status of g that f lacks, with g's reasons */
/* g's reason, with "rules above" and "as above" (which point into g's part
   of the header) pointing at g's page */
static char *borrowed(const func *g, const char *r)
{
    if (!r)
        return NULL;
    sb b = {0};
    while (*r) {
        if (starts(r, "rules above")) {
            sb_printf(&b, "rules of %s", g->name);
            r += 11;
        } else if (starts(r, "as above")) {
            sb_printf(&b, "as in %s", g->name);
            r += 8;
        } else {
            sb_addc(&b, *r++);
        }
    }
    return sb_take(&b);
}

static void take_missing(func *f, func *g)
{
    resolve(g);
    for (int k = 0; k < nst; k++)
        if (g->has[k] && !f->has[k]) {
            char *r = borrowed(g, g->reason[k]);
            add_reason(f, k, r);
            free(r);
        }
}

/* the first status word in s, its position and length; -1 if none */
static int find_status(const char *s, size_t *at, size_t *len, int *count)
{
    int found = -1;
    *count = 0;
    for (size_t i = 0; s[i];) {
        if (isupper((unsigned char)s[i]) && (i == 0 || !is_ident((unsigned char)s[i - 1]))) {
            size_t j = i;
            while (is_ident((unsigned char)s[j]))
                j++;
            int k = status_of(s + i, j - i);
            if (k >= 0) {
                if (found < 0) {
                    found = k;
                    *at = i;
                    *len = j - i;
                }
                ++*count;
            }
            i = j;
        } else {
            i++;
        }
    }
    return found;
}

/* "(host fallback: UNSUPPORTED)", "(UNSUPPORTED on the host fallback)":
   the reason goes to the status it names; a note that names no status but
   other functions takes their statuses too and is said with the list */
static void attach_note(func *f, const char *text, int to_note)
{
    size_t at, len;
    int count;
    int k = find_status(text, &at, &len, &count);
    if (k >= 0 && count == 1) {
        sb b = {0};
        sb_addn(&b, text, at);
        sb_add(&b, text + at + len);
        char *r = trim(b.s);
        free(b.s);
        size_t l = strlen(r);
        while (l && (r[l - 1] == ':' || r[l - 1] == ','))
            r[--l] = '\0';
        char *r2 = trim(r);
        if (starts(r2, "for "))
            memmove(r2, r2 + 4, strlen(r2 + 4) + 1);
        add_reason(f, k, r2);
        free(r);
        free(r2);
        return;
    }
    for (const char *p = text; (p = strstr(p, "gpgpu_")) != NULL;) {
        const char *e = p;
        while (is_ident((unsigned char)*e))
            e++;
        func *g = (p == text || !is_ident((unsigned char)p[-1])) ? find_func(p, (size_t)(e - p))
                                                                : NULL;
        if (g && g != f)
            take_missing(f, g);
        p = e;
    }
    if (to_note) {
        free(f->inherit_note);
        f->inherit_note = xstrdup(text);
    } else {
        int inv = status_named("GPGPU_ERROR_INVALID_ARGUMENT");
        add_reason(f, inv >= 0 ? inv : (nst > 1 ? 1 : 0), text);
    }
}

/* "as gpgpu_X ..." at the head of a reason: X's reason for that status */
static char *expand_as(func *f, int k, const char *r)
{
    if (!starts(r, "as gpgpu_"))
        return xstrdup(r);
    const char *p = r + 3, *e = p;
    while (is_ident((unsigned char)*e))
        e++;
    func *g = find_func(p, (size_t)(e - p));
    if (!g || g == f)
        return xstrdup(r);
    resolve(g);
    sb b = {0};
    char *gr = borrowed(g, g->reason[k]);
    if (gr)
        sb_add(&b, gr);
    free(gr);
    e += strspn(e, ", ");
    if (*e) {
        if (b.n)
            sb_add(&b, ", ");
        sb_add(&b, e);
    }
    return sb_take(&b);
}

static void inherit(func *f, func *g, const char *rest)
{
    resolve(g);
    for (int k = 0; k < nst; k++)
        if (g->has[k]) {
            char *r = borrowed(g, g->reason[k]);
            add_reason(f, k, r);
            free(r);
        }
    f->inherit = xstrdup(g->name);
    const char *p = rest;
    p += strspn(p, " ");
    if (*p == '(') {
        size_t c = match_paren(p, 0);
        char *note = xstrndup(p + 1, c > 0 ? c - 1 : 0);
        attach_note(f, note, 1);
        free(note);
        p += c + (p[c] ? 1 : 0);
    }
    p += strspn(p, " ,");
    if (starts(p, "plus ")) {
        p += 5;
        char *plus = trim(p);
        /* a trailing "(...)" is a note of its own */
        size_t l = strlen(plus);
        if (l && plus[l - 1] == ')') {
            int depth = 0;
            size_t o = l;
            while (o > 0) {
                o--;
                if (plus[o] == ')')
                    depth++;
                else if (plus[o] == '(' && --depth == 0)
                    break;
            }
            if (o > 0) {
                char *note = xstrndup(plus + o + 1, l - o - 2);
                plus[o] = '\0';
                attach_note(f, note, 0);
                free(note);
            }
        }
        char *main = trim(plus);
        size_t at, len;
        int count;
        int k = find_status(main, &at, &len, &count);
        if (k >= 0 && at == 0) {
            const char *r = main + len;
            r += strspn(r, " ");
            if (starts(r, "for "))
                r += 4;
            add_reason(f, k, r);
        } else if (*main) {
            attach_note(f, main, 0);
        }
        free(main);
        free(plus);
    }
}

static void resolve(func *f)
{
    if (f->state)
        return; /* done, or a cycle: what there is so far */
    f->state = 1;
    if (f->leader != (int)(f - fn)) {
        func *l = &fn[f->leader];
        resolve(l);
        memcpy(f->has, l->has, sizeof f->has);
        for (int k = 0; k < nst; k++)
            f->reason[k] = l->reason[k] ? xstrdup(l->reason[k]) : NULL;
        f->inherit = l->inherit;
        f->inherit_note = l->inherit_note;
        f->qual = l->qual;
        f->unknown = l->unknown;
        f->state = 2;
        return;
    }
    if (strcmp(f->ret, "gpgpu_status") != 0) {
        f->state = 2;
        return;
    }
    if (nst)
        f->has[0] = 1; /* GPGPU_SUCCESS */
    const char *c = f->errclause;
    if (c && starts(c, "Errors as ")) {
        const char *p = c + 10, *e = p;
        while (is_ident((unsigned char)*e))
            e++;
        func *g = find_func(p, (size_t)(e - p));
        if (g && g != f)
            inherit(f, g, e);
        else
            f->qual = xstrdup(c + 7);
    } else if (c) {
        const char *p = c + 7; /* "Errors:" */
        sb qual = {0};
        while (*p) {
            p += strspn(p, " ,");
            if (!*p)
                break;
            /* one item: up to ", " out of parentheses */
            size_t j = 0;
            int depth = 0;
            for (; p[j]; j++) {
                if (p[j] == '(')
                    depth++;
                else if (p[j] == ')' && depth > 0)
                    depth--;
                else if (depth == 0 && p[j] == ',')
                    break;
            }
            char *item = trimn(p, j);
            p += j;
            char *it = item;
            if (starts(it, "and "))
                it += 4;
            else if (starts(it, "or "))
                it += 3;
            size_t w = 0;
            while (is_ident((unsigned char)it[w]))
                w++;
            int k = w ? status_of(it, w) : -1;
            if (starts(it, "those of gpgpu_")) {
                const char *q = it + 9, *e = q;
                while (is_ident((unsigned char)*e))
                    e++;
                func *g = find_func(q, (size_t)(e - q));
                if (g && g != f) {
                    if (!f->inherit)
                        f->inherit = xstrdup(g->name);
                    take_missing(f, g);
                    const char *r = e + strspn(e, " ");
                    if (*r == '(') {
                        size_t cl = match_paren(r, 0);
                        char *note = xstrndup(r + 1, cl > 0 ? cl - 1 : 0);
                        attach_note(f, note, 1);
                        free(note);
                    }
                }
            } else if (k >= 0) {
                const char *r = it + w;
                r += strspn(r, " ");
                char *why;
                if (*r == '(')
                    why = xstrndup(r + 1, match_paren(r, 0) - 1);
                else
                    why = xstrdup(starts(r, "for ") ? r + 4 : r);
                char *x = expand_as(f, k, why);
                add_reason(f, k, x);
                free(x);
                free(why);
            } else if (*it) {
                if (qual.n)
                    sb_add(&qual, ", ");
                sb_add(&qual, it);
            }
            free(item);
        }
        if (qual.n)
            f->qual = sb_take(&qual);
    } else {
        /* no list: the function the comment starts with, else the family's
           host form */
        func *g = NULL;
        if (f->doc && f->doc->n && starts(f->doc->b[0].text, "gpgpu_")) {
            const char *t = f->doc->b[0].text, *e = t;
            while (is_ident((unsigned char)*e))
                e++;
            g = find_func(t, (size_t)(e - t));
        }
        if (!g || g == f) {
            char base[256];
            const char *n = f->name + 6;
            if (starts(n, "mpi_"))
                n += 4;
            snprintf(base, sizeof base, "gpgpu_%s", n);
            size_t l = strlen(base);
            const char *suf[] = {"_array", "_buffer", "_init"};
            for (int k = 0; k < 3; k++) {
                size_t sl = strlen(suf[k]);
                if (l > sl && strcmp(base + l - sl, suf[k]) == 0) {
                    base[l - sl] = '\0';
                    break;
                }
            }
            g = find_func(base, strlen(base));
        }
        if (g && g != f) {
            inherit(f, g, "");
        } else {
            f->unknown = 1;
            fprintf(stderr, "mkman: %s: no error list in its comment\n", f->name);
        }
    }
    /* a status the comment names anywhere is one the function returns */
    for (int b = 0; f->doc && b < f->doc->n; b++) {
        const char *s = f->doc->b[b].text;
        for (size_t i = 0; s[i];) {
            size_t at, len;
            int count;
            int k = find_status(s + i, &at, &len, &count);
            if (k < 0)
                break;
            f->has[k] = 1;
            i += at + len;
        }
    }
    f->state = 2;
}

/* ---- roff ------------------------------------------------------------------ */

typedef struct {
    int notes;   /* the page has NOTES that "above" may point to */
} rctx;

/* prose: roff escapes, function names and constants in bold, `code` too */
static void rtext(sb *o, const char *in, const rctx *cx, int plain)
{
    sb t = {0};
    /* "the rules above" point into the header; in a page they are under
       NOTES */
    for (const char *p = in; *p;) {
        if (cx && cx->notes && starts(p, "rules above")) {
            sb_add(&t, "rules under NOTES");
            p += 11;
        } else if (cx && cx->notes && starts(p, "as above")) {
            sb_add(&t, "as under NOTES");
            p += 8;
        } else {
            sb_addc(&t, *p++);
        }
    }
    const char *s = t.s ? t.s : "";
    if (*s == '.' || *s == '\'')
        sb_add(o, "\\&");
    for (size_t i = 0; s[i];) {
        char c = s[i];
        if (c == '`' && !plain && strchr(s + i + 1, '`')) {
            const char *e = strchr(s + i + 1, '`');
            sb_add(o, "\\fB");
            sb_add_literal(o, s + i + 1, e);
            sb_add(o, "\\fP");
            i = (size_t)(e - s) + 1;
            continue;
        }
        if ((isalpha((unsigned char)c) || c == '_') && (i == 0 || !is_ident((unsigned char)s[i - 1]))) {
            size_t j = i;
            while (is_ident((unsigned char)s[j]))
                j++;
            func *g = plain ? NULL : find_func(s + i, j - i);
            int constant = !plain && starts(s + i, "GPGPU_") && j - i > 6;
            for (size_t q = i; constant && q < j; q++)
                if (islower((unsigned char)s[q]))
                    constant = 0;
            if (g) {
                sb_add(o, "\\fB");
                sb_addn(o, s + i, j - i);
                sb_add(o, "\\fP");
                if (s[j] != '(')
                    sb_add(o, "()");
            } else if (constant) {
                sb_add(o, "\\fB");
                sb_addn(o, s + i, j - i);
                sb_add(o, "\\fP");
            } else if (s[j] == '-' && ((j - i == 5 && starts(s + i, "gpgpu")) ||
                                       (j - i == 3 && starts(s + i, "pkg")))) {
                /* a command: hyphens that survive copying */
                while (is_ident((unsigned char)s[j]) || (s[j] == '-' && isalpha((unsigned char)s[j + 1])))
                    j++;
                for (size_t q = i; q < j; q++) {
                    if (s[q] == '-')
                        sb_add(o, "\\-");
                    else
                        sb_addc(o, s[q]);
                }
            } else {
                sb_addn(o, s + i, j - i);
            }
            i = j;
            continue;
        }
        if (c == '\\')
            sb_add(o, "\\e");
        else if (c == '-' && !(i > 0 && isalnum((unsigned char)s[i - 1]) && isalpha((unsigned char)s[i + 1])))
            sb_add(o, "\\-");
        else
            sb_addc(o, c);
        i++;
    }
    free(t.s);
}

/* a quoted macro argument: no '"' inside */
static void emit_title(sb *o, const char *title)
{
    sb t = {0};
    rtext(&t, title, NULL, 1);
    for (const char *p = t.s; p && *p; p++) {
        if (*p == '"')
            sb_add(o, "\\(dq");
        else
            sb_addc(o, *p);
    }
    free(t.s);
}

static void emit_pre(sb *o, const char *text)
{
    /* lines less their common indentation */
    size_t minind = (size_t)-1;
    for (const char *p = text; *p;) {
        size_t ind = strspn(p, " ");
        const char *nl = strchr(p, '\n');
        if (p[ind] && p[ind] != '\n' && ind < minind)
            minind = ind;
        p = nl ? nl + 1 : p + strlen(p);
    }
    sb_add(o, ".PP\n.RS 4\n.nf\n");
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        size_t skip = l >= minind ? minind : l;
        const char *q = p + skip;
        if (q < p + l && (*q == '.' || *q == '\''))
            sb_add(o, "\\&");
        sb_add_literal(o, q, p + l);
        sb_addc(o, '\n');
        p = nl ? nl + 1 : p + l;
    }
    sb_add(o, ".fi\n.RE\n");
}

/* An indented block whose lines are "term  text" (two blanks or more
   between), with deeper lines continuing a text, is a table: one .TP item a
   row, so that it fills the page's width instead of running past it. */
static int emit_table(sb *o, const char *text, const rctx *cx)
{
    size_t base = (size_t)-1;
    for (const char *p = text; *p;) {
        size_t ind = strspn(p, " ");
        if (p[ind] != '\n' && ind < base)
            base = ind;
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
    }
    sb t = {0};
    int rows = 0, with_text = 0;
    sb body = {0};
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        char *line = xstrndup(p, l);
        p = nl ? nl + 1 : p + l;
        size_t ind = strspn(line, " ");
        if (!line[ind]) {
            free(line);
            continue;
        }
        if (ind == base) {
            if (rows) {
                with_text += body.n > 0;
                rtext(&t, body.s ? body.s : "", cx, 0);
                sb_addc(&t, '\n');
            }
            body.n = 0;
            if (body.s)
                body.s[0] = '\0';
            const char *gap = strstr(line + ind, "  ");
            char *term = gap ? trimn(line + ind, (size_t)(gap - line - ind)) : trim(line + ind);
            sb_add(&t, ".TP\n");
            rtext(&t, term, cx, 0);
            sb_addc(&t, '\n');
            free(term);
            if (gap) {
                char *rest = trim(gap);
                sb_add(&body, rest);
                free(rest);
            }
            rows++;
        } else if (rows) {
            char *rest = trim(line);
            if (body.n)
                sb_addc(&body, ' ');
            sb_add(&body, rest);
            free(rest);
        } else {
            free(line);
            free(t.s);
            free(body.s);
            return 0;
        }
        free(line);
    }
    if (rows) {
        with_text += body.n > 0;
        rtext(&t, body.s ? body.s : "", cx, 0);
    }
    sb_addc(&t, '\n');
    int ok = rows > 0 && with_text == rows;
    if (ok)
        sb_add(o, t.s);
    free(t.s);
    free(body.s);
    return ok;
}

static void emit_blocks(sb *o, const blocks *bs, const rctx *cx)
{
    for (int i = 0; i < bs->n; i++) {
        const block *b = &bs->b[i];
        if (b->kind == PRE) {
            if (!emit_table(o, b->text, cx))
                emit_pre(o, b->text);
            continue;
        }
        sb_add(o, b->kind == BULLET ? ".IP \\(bu 2\n" : ".PP\n");
        rtext(o, b->text, cx, 0);
        sb_addc(o, '\n');
    }
}

/* the prototype, in bold with the parameter names in italics, broken to fit
   80 columns */
static void emit_synopsis(sb *o, const func *f)
{
    const int width = 72;
    sb head = {0};
    sb_add(&head, f->ret);
    if (f->ret[strlen(f->ret) - 1] != '*')
        sb_addc(&head, ' ');
    sb_add(&head, f->name);
    sb_addc(&head, '(');
    size_t total = head.n;
    for (int i = 0; i < f->np; i++)
        total += strlen(f->p[i].type) + strlen(f->p[i].name) + strlen(f->p[i].suffix) + 2;
    int indent = total <= (size_t)width ? 0 : head.n <= 32 ? (int)head.n : 8;
    sb line = {0};   /* the .BI line being built */
    int col = (int)head.n;
    sb_add(&line, ".BI \"");
    sb_add(&line, head.s);
    if (f->np == 0)
        sb_add(&line, "void");
    for (int i = 0; i < f->np; i++) {
        const param *p = &f->p[i];
        int last = i == f->np - 1;
        int w = (int)(strlen(p->type) + strlen(p->name) + strlen(p->suffix)) + (last ? 2 : 1);
        if (i > 0 && col + 1 + w > width) {
            sb_add(&line, "\"\n");
            sb_add(o, line.s);
            line.n = 0;
            sb_printf(&line, ".BI \"%*s", indent, "");
            col = indent;
        } else if (i > 0) {
            sb_addc(&line, ' ');
            col++;
        }
        sb_add(&line, p->type);
        if (*p->name) {
            sb_add(&line, "\" ");
            sb_add(&line, p->name);
            sb_add(&line, " \"");
        }
        sb_add(&line, p->suffix);
        sb_add(&line, last ? "" : ",");
        col += w;
    }
    sb_add(&line, ");\"\n");
    sb_add(o, line.s);
    free(line.s);
    free(head.s);
}

static const char *plain_base(const char *name, char *buf, size_t size)
{
    const char *n = starts(name, "gpgpu_") ? name + 6 : name;
    if (starts(n, "mpi_"))
        n += 4;
    snprintf(buf, size, "%s", n);
    size_t l = strlen(buf);
    const char *suf[] = {"_array", "_buffer", "_init"};
    for (int k = 0; k < 3; k++) {
        size_t sl = strlen(suf[k]);
        if (l > sl && strcmp(buf + l - sl, suf[k]) == 0) {
            buf[l - sl] = '\0';
            break;
        }
    }
    return buf;
}

static int same_family(const char *a, const char *b)
{
    char x[256], y[256];
    plain_base(a, x, sizeof x);
    plain_base(b, y, sizeof y);
    x[strcspn(x, "_")] = '\0';
    y[strcspn(y, "_")] = '\0';
    return strcmp(x, y) == 0;
}

static int same_base(const char *a, const char *b)
{
    char x[256], y[256];
    return strcmp(plain_base(a, x, sizeof x), plain_base(b, y, sizeof y)) == 0;
}

static void cap_first(char *s)
{
    if (s[0] && islower((unsigned char)s[0]))
        s[0] = (char)toupper((unsigned char)s[0]);
}

static int write_page(const char *dir, const char *version, func *f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.3", dir, f->name);
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return -1;
    }
    if (f->leader != (int)(f - fn)) {
        fprintf(out, ".so man3/%s.3\n", fn[f->leader].name);
        fclose(out);
        return 0;
    }
    header *h = &hdrs[f->hdr];
    section *sec = &secs[f->sec];
    int is_status = strcmp(f->ret, "gpgpu_status") == 0;
    int first = (int)(f - fn), last = first;
    while (last + 1 < nfn && fn[last + 1].leader == first)
        last++;
    rctx cx = {sec->intro.n > 0 || f->current != NULL};
    sb o = {0};
    sb_printf(&o, ".\\\" Made by gpgpu-mkman from %s: edit the comment there.\n", h->base);
    /* the centre of the header line only where the name leaves room */
    sb_printf(&o, ".TH %s 3 \"\" \"libgpgpu %s\" \"%s\"\n", f->name, version,
              strlen(f->name) <= 26 ? "libgpgpu Manual" : "");
    sb_add(&o, ".nh\n.ad l\n");
    sb_add(&o, ".SH NAME\n");
    for (int i = first; i <= last; i++)
        sb_printf(&o, "%s%s", fn[i].name, i < last ? ", " : "");
    sb_add(&o, " \\- ");
    rtext(&o, f->summary, NULL, 1);
    sb_add(&o, "\n.SH LIBRARY\n");
    if (strcmp(h->lib, "gpgpu") == 0) {
        sb_add(&o, "libgpgpu (\\fI\\-lgpgpu\\fP; \\fBpkg\\-config \\-\\-cflags \\-\\-libs gpgpu\\fP)\n");
    } else {
        sb lib = {0};
        rtext(&lib, h->lib, NULL, 1);
        sb_printf(&o, "lib%s, over libgpgpu and MPI (\\fI\\-l%s \\-lgpgpu\\fP; "
                      "\\fBpkg\\-config \\-\\-cflags \\-\\-libs %s\\fP, with \\fBmpicc\\fP)\n",
                  lib.s, lib.s, lib.s);
        free(lib.s);
    }
    sb_add(&o, ".SH SYNOPSIS\n.nf\n");
    sb_printf(&o, ".B #include <%s>\n", h->base);
    for (int i = first; i <= last; i++) {
        sb_add(&o, ".PP\n");
        emit_synopsis(&o, &fn[i]);
    }
    sb_add(&o, ".fi\n.SH DESCRIPTION\n");
    if (f->desc.n)
        emit_blocks(&o, &f->desc, &cx);
    else
        sb_add(&o, "See the header.\n");

    sb_add(&o, ".SH RETURN VALUE\n");
    sb names = {0};
    for (int i = first; i <= last; i++) {
        if (i > first)
            sb_add(&names, i == last ? " and " : ", ");
        sb_printf(&names, "\\fB%s\\fP()", fn[i].name);
    }
    if (is_status) {
        int ctxarg = 0;
        for (int i = 0; i < f->np; i++)
            if (strcmp(f->p[i].name, "ctx") == 0 && !strstr(f->p[i].type, "**"))
                ctxarg = 1;
        const char *detail = strstr(h->lib, "mpi")
                                 ? "\\fBgpgpu_mpi_last_error\\fP() says which rank failed and why"
                             : ctxarg ? "\\fBgpgpu_last_error\\fP(\\fIctx\\fP) says which condition failed"
                                      : "\\fBgpgpu_last_error\\fP(NULL) in the calling thread "
                                        "says which condition failed";
        sb_printf(&o, "%s %s \\fBGPGPU_SUCCESS\\fP on success.\n", names.s,
                  first == last ? "returns" : "return");
        if (f->unknown) {
            sb_printf(&o, "Otherwise %s an error status (see \\fBgpgpu\\fP(7)); %s.\n",
                      first == last ? "it returns" : "they return", detail);
        } else {
            sb_printf(&o, "Otherwise %s one of the statuses below",
                      first == last ? "it returns" : "they return");
            if (f->inherit) {
                sb_printf(&o, ", as \\fB%s\\fP() does", f->inherit);
                if (f->inherit_note) {
                    sb_add(&o, " (");
                    rtext(&o, f->inherit_note, &cx, 0);
                    sb_addc(&o, ')');
                }
            }
            if (f->qual) {
                sb_add(&o, ", ");
                rtext(&o, f->qual, &cx, 0);
            }
            sb_printf(&o, "; %s.\n", detail);
            for (int k = 1; k < nst; k++) {
                if (!f->has[k])
                    continue;
                sb_printf(&o, ".TP\n.B %s\n", st[k].name);
                char *r = xstrdup(f->reason[k] ? f->reason[k] : st[k].text);
                if (!f->reason[k])
                    cap_first(r);
                rtext(&o, r, &cx, 0);
                size_t l = strlen(r);
                sb_add(&o, l && r[l - 1] == '.' ? "\n" : ".\n");
                free(r);
            }
        }
        if (f->remarks.n) {
            sb_add(&o, ".PP\n");
            rtext(&o, f->remarks.s, &cx, 0);
            sb_addc(&o, '\n');
        }
    } else if (strcmp(f->ret, "void") == 0) {
        sb_printf(&o, "%s %s no value.\n", names.s, first == last ? "returns" : "return");
    } else {
        /* a "Returns ..." sentence, else the comment's first sentence */
        const char *said = NULL;
        const char *t = (f->doc && f->doc->n) ? f->doc->b[0].text : "";
        for (int b = 0; f->doc && b < f->doc->n && !said; b++) {
            const char *s = f->doc->b[b].text;
            for (size_t i = 0; s[i];) {
                i = skip_blanks(s, i);
                size_t e = sentence_end(s, i);
                if (starts(s + i, "Returns ")) {
                    char *sent = trimn(s + i + 8, e - i - 8);
                    sb_printf(&o, "%s returns ", names.s);
                    rtext(&o, sent, &cx, 0);
                    sb_addc(&o, '\n');
                    free(sent);
                    said = s;
                    break;
                }
                i = e;
            }
        }
        if (!said && *t) {
            size_t e = sentence_end(t, 0);
            char *sent = trimn(t, e);
            if (isupper((unsigned char)sent[0]) && islower((unsigned char)sent[1]))
                sent[0] = (char)tolower((unsigned char)sent[0]);
            sb_printf(&o, "%s returns ", names.s);
            rtext(&o, sent, &cx, 0);
            sb_addc(&o, '\n');
            free(sent);
        } else if (!said) {
            sb_printf(&o, "%s returns a value of type \\fB%s\\fP.\n", names.s, f->ret);
        }
    }
    free(names.s);

    if (cx.notes || (is_status && h->conventions.n)) {
        sb_add(&o, ".SH NOTES\n");
        if (cx.notes) {
            if (sec->title) {
                sb_add(&o, ".SS \"");
                emit_title(&o, sec->title);
                sb_add(&o, "\"\n");
            }
            emit_blocks(&o, &sec->intro, NULL);
            if (f->current)
                emit_blocks(&o, f->current, NULL);
        }
        if (is_status && h->conventions.n) {
            sb_printf(&o, ".SS \"Conventions of %s\"\n", h->base);
            emit_blocks(&o, &h->conventions, NULL);
        }
    }
    char *since = f->since ? xstrdup(f->since) : NULL;
    if (!since && cx.notes) {
        /* a "Since X.Y." of the section's notes */
        const blocks *bl[2] = {&sec->intro, f->current};
        for (int k = 0; k < 2 && !since; k++)
            for (int b = 0; bl[k] && b < bl[k]->n && !since; b++) {
                const char *p = strstr(bl[k]->b[b].text, "Since ");
                unsigned maj, min;
                if (p && sscanf(p, "Since %u.%u", &maj, &min) == 2) {
                    char v[64];
                    snprintf(v, sizeof v, "%u.%u", maj, min);
                    since = xstrdup(v);
                }
            }
    }
    if (since) {
        sb_add(&o, ".SH HISTORY\n");
        for (int i = first; i <= last; i++)
            sb_printf(&o, "%s\\fB%s\\fP()", i == first ? "" : i == last ? " and " : ", ",
                      fn[i].name);
        sb_printf(&o, " first appeared in libgpgpu %s.\n", since);
        free(since);
    }

    /* SEE ALSO: the same base, the family, the functions the comment names */
    sb_add(&o, ".SH SEE ALSO\n");
    int *seen = calloc((size_t)nfn, sizeof *seen);
    int *order = calloc((size_t)nfn, sizeof *order);
    int no = 0;
    for (int i = first; i <= last; i++)
        seen[i] = 1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nfn; i++)
            if (!seen[i] && fn[i].leader == i &&
                (pass == 0 ? same_base(f->name, fn[i].name) : same_family(f->name, fn[i].name))) {
                seen[i] = 1;
                order[no++] = i;
            }
    for (int b = 0; f->doc && b < f->doc->n; b++) {
        const char *s = f->doc->b[b].text;
        for (const char *p = s; (p = strstr(p, "gpgpu_")) != NULL;) {
            const char *e = p;
            while (is_ident((unsigned char)*e))
                e++;
            func *g = (p == s || !is_ident((unsigned char)p[-1])) ? find_func(p, (size_t)(e - p)) : NULL;
            if (g && !seen[fn[g - fn].leader]) {
                seen[fn[g - fn].leader] = 1;
                order[no++] = fn[g - fn].leader;
            }
            p = e;
        }
    }
    /* and the functions of the same part of the header that name this one */
    for (int i = 0; i < nfn; i++) {
        if (seen[i] || fn[i].leader != i || fn[i].sec != f->sec || !fn[i].doc)
            continue;
        for (int b = 0; b < fn[i].doc->n && !seen[i]; b++) {
            const char *s = fn[i].doc->b[b].text;
            for (int j = first; j <= last && !seen[i]; j++) {
                size_t l = strlen(fn[j].name);
                for (const char *p = s; (p = strstr(p, fn[j].name)) != NULL; p += l)
                    if ((p == s || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[l])) {
                        seen[i] = 1;
                        order[no++] = i;
                        break;
                    }
            }
        }
    }
    for (int i = 0; i < no; i++)
        sb_printf(&o, ".BR %s (3),\n", fn[order[i]].name);
    sb_add(&o, ".BR gpgpu (7)\n");
    free(seen);
    free(order);

    fputs(o.s, out);
    free(o.s);
    if (fclose(out) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* ---- gpgpu.7 ---------------------------------------------------------------- */

static void emit_families(FILE *out)
{
    int *done = calloc((size_t)nfn, sizeof *done);
    int lastsec = -2, lasthdr = -1;
    for (int i = 0; i < nfn; i++) {
        if (done[i])
            continue;
        func *f = &fn[i];
        if (f->hdr != lasthdr || f->sec != lastsec) {
            sb t = {0};
            emit_title(&t, secs[f->sec].title ? secs[f->sec].title : hdrs[f->hdr].base);
            fprintf(out, ".SS \"%s\"\n", t.s);
            free(t.s);
            lastsec = f->sec;
            lasthdr = f->hdr;
        }
        sb o = {0};
        sb_add(&o, ".TP\n");
        int n = 0;
        for (int j = i; j < nfn; j++) {
            if (done[j] || !same_base(f->name, fn[j].name))
                continue;
            done[j] = 1;
            sb_printf(&o, "%s\\fB%s\\fP(3)", n++ ? ", " : "", fn[j].name);
        }
        sb_addc(&o, '\n');
        rtext(&o, f->summary, NULL, 1);
        sb_add(&o, ".\n");
        fputs(o.s, out);
        free(o.s);
    }
    free(done);
}

static int write_overview(const char *dir, const char *version, const char *tmpl)
{
    FILE *in = fopen(tmpl, "r");
    if (!in) {
        perror(tmpl);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/gpgpu.7", dir);
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        fclose(in);
        return -1;
    }
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        if (starts(line, "@GPGPU_FAMILIES@")) {
            emit_families(out);
            continue;
        }
        if (starts(line, "@GPGPU_STATUSES@")) {
            for (int k = 0; k < nst; k++) {
                char *t = xstrdup(st[k].text);
                cap_first(t);
                fprintf(out, ".TP\n.BR %s \" (%d)\"\n%s.\n", st[k].name, k, t);
                free(t);
            }
            continue;
        }
        for (char *p = line; *p;) {
            if (starts(p, "@VERSION@")) {
                fputs(version, out);
                p += 9;
            } else {
                fputc(*p++, out);
            }
        }
    }
    fclose(in);
    if (fclose(out) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = ".", *version = "", *tmpl = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc)
            break;
        if (strcmp(argv[i], "-o") == 0)
            dir = argv[i + 1];
        else if (strcmp(argv[i], "-v") == 0)
            version = argv[i + 1];
        else if (strcmp(argv[i], "-t") == 0)
            tmpl = argv[i + 1];
        else
            break;
    }
    if (i >= argc || argc - i > 8) {
        fprintf(stderr, "usage: gpgpu-mkman -o DIR -v VERSION [-t TEMPLATE.7.in] HEADER...\n");
        return 2;
    }
    for (; i < argc; i++)
        read_header(argv[i]);
    if (!nst) {
        fprintf(stderr, "mkman: no GPGPU_STATUS_LIST in the headers\n");
        return 1;
    }
    for (int k = 0; k < nfn; k++)
        split_comment(&fn[k]);
    for (int k = 0; k < nfn; k++)
        resolve(&fn[k]);
    for (int k = 0; k < nfn; k++) {
        if (write_page(dir, version, &fn[k]) != 0)
            return 1;
        printf("%s.3\n", fn[k].name);
    }
    if (tmpl && write_overview(dir, version, tmpl) != 0)
        return 1;
    return 0;
}
