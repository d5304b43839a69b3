/*
 * Reading an XML topology for hwloc. hwloc reads XML with libxml2 when its
 * plugin is installed and with a minimal parser of its own otherwise
 * (HWLOC_LIBXML=0 forces it); the two accept different files. shoal reads
 * the file itself, refuses what hwloc would crash or stall on, and hands
 * hwloc a canonical form that both parsers read the same way:
 *
 *   - no XML declaration, DOCTYPE, comment or processing instruction;
 *   - the root <topology> with at most version="M.m";
 *   - every tag on its own line, attributes as name="value" separated by one
 *     space, values escaped with &quot; &lt; &gt; &amp; &#10; &#13; &#9;
 *     only (after XML's own decoding: entities and character references,
 *     attribute whitespace turned into spaces, CRLF into LF);
 *   - text only in the elements whose text hwloc reads (userdata, indexes,
 *     u64values), as decoded; elsewhere dropped, as libxml2 skips it.
 *
 * What only one of the parsers could read is refused here with the byte
 * where it is: text with '<', '&', a CR reference or "]]>", names outside
 * [a-z0-9_], other encodings than UTF-8, bytes that are not UTF-8 or not XML
 * characters, a DOCTYPE with an internal subset, text beside child
 * elements. So is every object hwloc would crash or stall on, checked on
 * the canonical form, that is on the values as hwloc will read them (the
 * pre-check, xml_check.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo_error.h"
#include "topo_xml.h"
#include "topo_xml_check.h"

/* ------------------------------------------------------------- canonical form */

/* Deepest element nesting accepted; hwloc's deepest trees are a few dozen. */
#define SHOAL__XML_MAX_DEPTH 256

/* A growing output buffer; on allocation failure it keeps failing. */
typedef struct shoal__xml_out {
    char *buf;
    size_t len, cap;
    int oom;
} shoal__xml_out_t;

static void shoal__xml_put(shoal__xml_out_t *o, const char *s, size_t n)
{
    if (o->oom) return;
    if (o->cap - o->len < n + 1) {
        size_t cap = o->cap ? o->cap : 1 << 16;
        char *grown;
        while (cap - o->len < n + 1) cap *= 2;
        if ((grown = realloc(o->buf, cap)) == NULL) {
            o->oom = 1;
            return;
        }
        o->buf = grown;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void shoal__xml_puts(shoal__xml_out_t *o, const char *s) { shoal__xml_put(o, s, strlen(s)); }

/* The reader's state: the text, where it is, and the first refusal. */
typedef struct shoal__xml_reader {
    const char *text, *p, *end;
    char why[200];
    size_t at; /* byte of the refusal */
    int refused;
} shoal__xml_reader_t;

__attribute__((format(printf, 3, 4))) static int shoal__xml_refuse(shoal__xml_reader_t *r, const char *where,
                                                                   const char *fmt, ...)
{
    va_list ap;

    if (!r->refused) {
        r->refused = 1;
        r->at = (size_t)(where - r->text);
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof(r->why), fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int shoal__xml_starts(const shoal__xml_reader_t *r, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(r->end - r->p) >= n && memcmp(r->p, s, n) == 0;
}

static void shoal__xml_skip_space(shoal__xml_reader_t *r)
{
    while (r->p < r->end && shoal__xml_space(*r->p)) r->p++;
}

/* A character XML 1.0 allows in a document. */
static int shoal__xml_char_ok(uint32_t c)
{
    return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
           (c >= 0x10000 && c <= 0x10ffff);
}

/* Valid UTF-8 of XML characters only (no overlong forms, surrogates, C0
 * controls but tab, LF and CR, U+FFFE, U+FFFF or code points above
 * U+10FFFF), as libxml2 demands; the minimal parser would take anything. */
static const char *shoal__xml_bad_utf8(const char *text, const char *end)
{
    const unsigned char *p = (const unsigned char *)text, *e = (const unsigned char *)end;

    while (p < e) {
        unsigned c = *p, n, cp, i;
        if (c < 0x80) {
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return (const char *)p; /* not an XML character */
            p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            n = 1, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            n = 2, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            n = 3, cp = c & 0x07;
        else
            return (const char *)p;
        if ((size_t)(e - p) <= n) return (const char *)p;
        for (i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80) return (const char *)p;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || !shoal__xml_char_ok(cp))
            return (const char *)p; /* overlong, a surrogate, U+FFFE, U+FFFF, above U+10FFFF */
        p += n + 1;
    }
    return NULL;
}

/* Append code point c as UTF-8. */
static void shoal__xml_put_utf8(shoal__xml_out_t *o, uint32_t c)
{
    char b[4];
    size_t n;

    if (c < 0x80)
        b[0] = (char)c, n = 1;
    else if (c < 0x800)
        b[0] = (char)(0xc0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3f)), n = 2;
    else if (c < 0x10000)
        b[0] = (char)(0xe0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 0x3f)), b[2] = (char)(0x80 | (c & 0x3f)), n = 3;
    else
        b[0] = (char)(0xf0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 0x3f)),
        b[2] = (char)(0x80 | ((c >> 6) & 0x3f)), b[3] = (char)(0x80 | (c & 0x3f)), n = 4;
    shoal__xml_put(o, b, n);
}

/* The reference at amp ('&'), up to its ';', decoded into *c; the byte after
 * it, or NULL for one XML does not define (only a DTD could). */
static const char *shoal__xml_reference(const char *amp, const char *end, uint32_t *c)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}};
    const char *p = amp + 1;

    if (p < end && *p == '#') {
        int hex = ++p < end && *p == 'x';
        uint32_t v = 0;
        const char *digits;
        p += hex;
        for (digits = p; p < end && (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)); p++) {
            v = v * (hex ? 16 : 10) + (uint32_t)(isdigit((unsigned char)*p) ? *p - '0' : (tolower(*p) - 'a' + 10));
            if (v > 0x10ffff) return NULL;
        }
        if (p == digits || p == end || *p != ';' || !shoal__xml_char_ok(v)) return NULL;
        *c = v;
        return p + 1;
    }
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        size_t n = strlen(named[i].name);
        if ((size_t)(end - p) >= n && memcmp(p, named[i].name, n) == 0) {
            *c = (uint32_t)named[i].c;
            return p + n;
        }
    }
    return NULL;
}

/* A name of hwloc's XML at r->p ([a-z0-9_]+, what the minimal parser reads;
 * allowed is its set for this kind of name); its length, or -1 refused. */
static int shoal__xml_name(shoal__xml_reader_t *r, const char *allowed, const char *what, size_t *len_p)
{
    const char *s = r->p, *e = s;

    while (e < r->end && (isalnum((unsigned char)*e) || strchr("_-.:", *e) != NULL)) e++;
    if (e == s) return shoal__xml_refuse(r, s, "a %s name is missing", what);
    for (const char *q = s; q < e; q++)
        if (strchr(allowed, *q) == NULL)
            return shoal__xml_refuse(r, s, "%s name '%.*s': hwloc's XML names are made of %s", what,
                                     (int)(e - s > 40 ? 40 : e - s), s,
                                     strchr(allowed, '0') ? "a-z, 0-9 and '_'" : "a-z and '_'");
    r->p = e;
    *len_p = (size_t)(e - s);
    return 0;
}

/* Skip a comment, a processing instruction or a DOCTYPE at r->p: 1 when one
 * was skipped, 0 when none is there, -1 refused. */
static int shoal__xml_skip_misc(shoal__xml_reader_t *r, int doctype_ok)
{
    const char *q, *at = r->p;

    if (shoal__xml_starts(r, "<!--")) {
        if ((q = memmem(r->p + 4, (size_t)(r->end - r->p - 4), "--", 2)) == NULL || q + 2 >= r->end || q[2] != '>')
            return shoal__xml_refuse(r, at, "a comment that does not end with \"-->\" (or holds \"--\")");
        r->p = q + 3;
        return 1;
    }
    if (shoal__xml_starts(r, "<?")) {
        if ((q = memmem(r->p + 2, (size_t)(r->end - r->p - 2), "?>", 2)) == NULL)
            return shoal__xml_refuse(r, at, "a processing instruction without \"?>\"");
        if (q - r->p >= 5 && strncasecmp(r->p + 2, "xml", 3) == 0 && (q - r->p == 5 || shoal__xml_space(r->p[5])))
            return shoal__xml_refuse(r, at, "an XML declaration that is not at the start of the file");
        r->p = q + 2;
        return 1;
    }
    if (shoal__xml_starts(r, "<!DOCTYPE")) {
        if (!doctype_ok) return shoal__xml_refuse(r, at, "a DOCTYPE after the root element's start or a second one");
        for (q = r->p + 9; q < r->end && *q != '>' && *q != '['; q++) continue;
        if (q == r->end) return shoal__xml_refuse(r, at, "a DOCTYPE without '>'");
        if (*q == '[')
            return shoal__xml_refuse(r, at,
                                     "a DOCTYPE with an internal subset (its entities and defaults are "
                                     "read by libxml2 only)");
        r->p = q + 1;
        return 1;
    }
    return 0;
}

/* The XML declaration, if the file starts with one: only UTF-8 (or ASCII)
 * is read the same by both parsers. */
static int shoal__xml_declaration(shoal__xml_reader_t *r)
{
    const char *q, *enc;

    if (!shoal__xml_starts(r, "<?xml") || (r->end - r->p > 5 && !shoal__xml_space(r->p[5]) && r->p[5] != '?')) return 0;
    if ((q = memmem(r->p, (size_t)(r->end - r->p), "?>", 2)) == NULL)
        return shoal__xml_refuse(r, r->p, "an XML declaration without \"?>\"");
    if ((enc = memmem(r->p, (size_t)(q - r->p), "encoding", 8)) != NULL) {
        const char *v = enc + 8;
        while (v < q && (shoal__xml_space(*v) || *v == '=')) v++;
        if (v < q && (*v == '"' || *v == '\'')) v++;
        if (!((q - v >= 5 && strncasecmp(v, "UTF-8", 5) == 0 && (v[5] == '"' || v[5] == '\'')) ||
              (q - v >= 8 && strncasecmp(v, "US-ASCII", 8) == 0 && (v[8] == '"' || v[8] == '\'')) ||
              (q - v >= 5 && strncasecmp(v, "ASCII", 5) == 0 && (v[5] == '"' || v[5] == '\''))))
            return shoal__xml_refuse(r, enc,
                                     "an encoding other than UTF-8 (hwloc's minimal parser reads bytes as "
                                     "they are)");
    }
    r->p = q + 2;
    return 0;
}

/* One attribute value, decoded as XML does and escaped as hwloc writes it. */
static int shoal__xml_attr_value(shoal__xml_reader_t *r, shoal__xml_out_t *o)
{
    char quote = *r->p;
    const char *p = r->p + 1, *start = r->p;

    for (;;) {
        const char *run = p;
        while (p < r->end && *p != quote && *p != '&' && *p != '<' && *p != '"' && *p != '>' && *p != '\t' &&
               *p != '\n' && *p != '\r')
            p++;
        shoal__xml_put(o, run, (size_t)(p - run));
        if (p == r->end) return shoal__xml_refuse(r, start, "an attribute value without its closing quote");
        if (*p == quote) break;
        switch (*p) {
        case '<': return shoal__xml_refuse(r, p, "a '<' inside an attribute value");
        case '"':
            shoal__xml_puts(o, "&quot;");
            p++;
            break;
        case '>':
            shoal__xml_puts(o, "&gt;");
            p++;
            break;
        case '\r':
            /* CRLF is one line end; any white space character in a value
             * reads as a space (XML attribute normalization). */
            p += p + 1 < r->end && p[1] == '\n' ? 2 : 1;
            shoal__xml_puts(o, " ");
            break;
        case '\t':
        case '\n':
            shoal__xml_puts(o, " ");
            p++;
            break;
        default: { /* '&' */
            uint32_t c;
            const char *next = shoal__xml_reference(p, r->end, &c);
            if (next == NULL)
                return shoal__xml_refuse(r, p, "an entity XML does not define, or a bad character reference");
            switch (c) {
            case '\n': shoal__xml_puts(o, "&#10;"); break;
            case '\r': shoal__xml_puts(o, "&#13;"); break;
            case '\t': shoal__xml_puts(o, "&#9;"); break;
            case '"': shoal__xml_puts(o, "&quot;"); break;
            case '<': shoal__xml_puts(o, "&lt;"); break;
            case '>': shoal__xml_puts(o, "&gt;"); break;
            case '&': shoal__xml_puts(o, "&amp;"); break;
            default: shoal__xml_put_utf8(o, c); break;
            }
            p = next;
        }
        }
    }
    r->p = p + 1;
    return 0;
}

/* The attributes of a start tag, up to its '>' or "/>": 1 for an empty
 * element, 0 otherwise, -1 refused. For the root, only version="M.m". */
static int shoal__xml_attrs(shoal__xml_reader_t *r, shoal__xml_out_t *o, int root)
{
    const char *names[64];
    size_t lens[64];
    int n = 0;

    for (;;) {
        const char *before = r->p, *name;
        size_t len;
        shoal__xml_skip_space(r);
        if (r->p == r->end) return shoal__xml_refuse(r, before, "a start tag without '>'");
        if (*r->p == '>') {
            r->p++;
            return 0;
        }
        if (*r->p == '/') {
            if (r->p + 1 == r->end || r->p[1] != '>') return shoal__xml_refuse(r, r->p, "a '/' not followed by '>'");
            r->p += 2;
            return 1;
        }
        if (r->p == before) return shoal__xml_refuse(r, r->p, "attributes not separated by white space");
        name = r->p;
        if (shoal__xml_name(r, "abcdefghijklmnopqrstuvwxyz_", "attribute", &len) < 0) return -1;
        for (int i = 0; i < n; i++)
            if (lens[i] == len && memcmp(names[i], name, len) == 0)
                return shoal__xml_refuse(r, name, "attribute '%.*s' given twice", (int)len, name);
        if (n == (int)(sizeof(names) / sizeof(names[0])))
            return shoal__xml_refuse(r, name, "more than %d attributes on one element", n);
        names[n] = name, lens[n++] = len;
        shoal__xml_skip_space(r);
        if (r->p == r->end || *r->p != '=')
            return shoal__xml_refuse(r, name, "attribute '%.*s' without '='", (int)len, name);
        r->p++;
        shoal__xml_skip_space(r);
        if (r->p == r->end || (*r->p != '"' && *r->p != '\''))
            return shoal__xml_refuse(r, name, "attribute '%.*s' without a quoted value", (int)len, name);
        if (root) {
            /* The minimal parser reads exactly <topology version="M.m">. */
            unsigned major, minor;
            char tail;
            const char *v = r->p + 1, *q = memchr(v, *r->p, (size_t)(r->end - v));
            char buf[32];
            if (!(len == 7 && memcmp(name, "version", 7) == 0))
                return shoal__xml_refuse(r, name, "<topology> with attribute '%.*s' (hwloc's root has version only)",
                                         (int)len, name);
            if (q == NULL || q - v >= (long)sizeof(buf))
                return shoal__xml_refuse(r, v, "a topology version that is not M.m");
            memcpy(buf, v, (size_t)(q - v));
            buf[q - v] = '\0';
            if (!isdigit((unsigned char)buf[0]) || sscanf(buf, "%u.%u%c", &major, &minor, &tail) != 2)
                return shoal__xml_refuse(r, v, "a topology version that is not M.m");
            shoal__xml_put(o, " version=\"", 10);
            shoal__xml_put(o, buf, strlen(buf));
            shoal__xml_puts(o, "\"");
            r->p = q + 1;
            continue;
        }
        shoal__xml_puts(o, " ");
        shoal__xml_put(o, name, len);
        shoal__xml_puts(o, "=\"");
        if (shoal__xml_attr_value(r, o) < 0) return -1;
        shoal__xml_puts(o, "\"");
    }
}

/* An element's pending text: decoded into o's tail only when it turns out
 * to have no children. */
typedef struct shoal__xml_level {
    const char *name;
    size_t name_len;
    int children;
    size_t text_at;   /* where its text starts in the output, or SIZE_MAX */
    const char *text; /* first byte of non-space text in the input, or NULL */
} shoal__xml_level_t;

/* Text and CDATA sections up to the next tag, decoded into o; refused
 * where the minimal parser would read other bytes than libxml2 does. */
static int shoal__xml_text(shoal__xml_reader_t *r, shoal__xml_out_t *o, shoal__xml_level_t *l)
{
    const char *p = r->p;

    while (p < r->end) {
        if ((size_t)(r->end - p) >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
            const char *q = memmem(p + 9, (size_t)(r->end - p - 9), "]]>", 3);
            if (q == NULL) return shoal__xml_refuse(r, p, "a CDATA section without \"]]>\"");
            for (const char *c = p + 9; c < q; c++) {
                if (*c == '<' || *c == '&')
                    return shoal__xml_refuse(r, c, "text with a '<' or '&' (hwloc's minimal parser cannot read it)");
                if (!shoal__xml_space(*c) && l->text == NULL) l->text = c;
                if (*c != '\r')
                    shoal__xml_put(o, c, 1);
                else if (c + 1 == q || c[1] != '\n')
                    shoal__xml_puts(o, "\n");
            }
            p = q + 3;
            continue;
        }
        if (*p == '<') break;
        if (!shoal__xml_space(*p) && l->text == NULL) l->text = p;
        if (*p == '&') {
            uint32_t c;
            const char *next = shoal__xml_reference(p, r->end, &c);
            if (next == NULL)
                return shoal__xml_refuse(r, p, "an entity XML does not define, or a bad character reference");
            if (c == '<' || c == '&')
                return shoal__xml_refuse(r, p, "text with a '<' or '&' (hwloc's minimal parser cannot read it)");
            if (c == '\r')
                return shoal__xml_refuse(r, p,
                                         "a carriage return written as a reference in text (the parsers "
                                         "count its length differently)");
            shoal__xml_put_utf8(o, c);
            p = next;
        } else if (*p == '\r') {
            p += p + 1 < r->end && p[1] == '\n' ? 2 : 1;
            shoal__xml_puts(o, "\n");
        } else if (*p == '>' && p - r->text >= 2 && p[-1] == ']' && p[-2] == ']') {
            return shoal__xml_refuse(r, p - 2, "\"]]>\" in text");
        } else {
            shoal__xml_put(o, p++, 1);
        }
    }
    r->p = p;
    return 0;
}

/* Elements whose text hwloc reads (userdata, and the indexes and values
 * of a distances matrix); the text of any other is dropped. */
static int shoal__xml_has_content(const char *name, size_t len)
{
    static const char *const names[] = {"userdata", "indexes", "u64values"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (len == strlen(names[i]) && memcmp(name, names[i], len) == 0) return 1;
    return 0;
}

/* The canonical form of text[0..n) into *o, or a refusal in r. */
static int shoal__xml_canonical(shoal__xml_reader_t *r, shoal__xml_out_t *o)
{
    shoal__xml_level_t stack[SHOAL__XML_MAX_DEPTH];
    int depth = 0, rc, seen_root = 0, seen_doctype = 0;
    const char *bad;
    char why[160];
    size_t tag_out;

    if ((bad = shoal__xml_bad_utf8(r->text, r->end)) != NULL)
        return shoal__xml_refuse(r, bad, "bytes that are not UTF-8 or not an XML character");
    if ((size_t)(r->end - r->p) >= 3 && memcmp(r->p, "\xef\xbb\xbf", 3) == 0) r->p += 3;
    if (memchr(r->text, '\0', (size_t)(r->end - r->text)) != NULL)
        return shoal__xml_refuse(r, memchr(r->text, '\0', (size_t)(r->end - r->text)), "a NUL byte");
    if (shoal__xml_declaration(r) < 0) return -1;

    for (;;) {
        shoal__xml_level_t *l = depth ? &stack[depth - 1] : NULL;
        const char *tag;
        size_t len;

        if (l) {
            if (shoal__xml_text(r, o, l) < 0) return -1;
        } else {
            shoal__xml_skip_space(r);
        }
        if (r->p == r->end) {
            if (depth)
                return shoal__xml_refuse(r, stack[depth - 1].name, "element <%.*s> is never closed",
                                         (int)stack[depth - 1].name_len, stack[depth - 1].name);
            if (!seen_root) return shoal__xml_refuse(r, r->p, "no <topology> element");
            return 0;
        }
        if (*r->p != '<') return shoal__xml_refuse(r, r->p, "text outside the root element");
        if (shoal__xml_starts(r, "<!DOCTYPE")) seen_doctype++;
        if ((rc = shoal__xml_skip_misc(r, !seen_root && seen_doctype <= 1)) < 0) return -1;
        if (rc) continue;
        tag = r->p;
        if (shoal__xml_starts(r, "</")) {
            if (!l) return shoal__xml_refuse(r, tag, "a closing tag outside any element");
            r->p += 2;
            if (shoal__xml_name(r, "abcdefghijklmnopqrstuvwxyz0123456789_", "element", &len) < 0) return -1;
            if (len != l->name_len || memcmp(tag + 2, l->name, len) != 0)
                return shoal__xml_refuse(r, tag, "</%.*s> closes <%.*s>", (int)len, tag + 2, (int)l->name_len, l->name);
            shoal__xml_skip_space(r);
            if (r->p == r->end || *r->p != '>') return shoal__xml_refuse(r, tag, "a closing tag without '>'");
            r->p++;
            if (l->children) {
                if (l->text)
                    return shoal__xml_refuse(r, l->text, "text beside child elements of <%.*s>", (int)l->name_len,
                                             l->name);
                o->len = o->oom ? o->len : l->text_at; /* only white space between the children */
                shoal__xml_puts(o, "\n");
            } else if (!shoal__xml_has_content(l->name, l->name_len)) {
                /* Text hwloc never reads: libxml2 skips it, the minimal
                 * parser would stumble on it. */
                o->len = o->oom ? o->len : l->text_at;
            } else if (!o->oom && memmem(o->buf + l->text_at, o->len - l->text_at, "]]>", 3) != NULL) {
                return shoal__xml_refuse(r, l->name, "text of <%.*s> containing \"]]>\"", (int)l->name_len, l->name);
            }
            shoal__xml_puts(o, "</");
            shoal__xml_put(o, l->name, l->name_len);
            shoal__xml_puts(o, ">");
            depth--;
            if (depth) {
                stack[depth - 1].text_at = o->len;
                stack[depth - 1].text = NULL;
            }
            continue;
        }
        if (shoal__xml_starts(r, "<!")) return shoal__xml_refuse(r, tag, "a markup declaration inside the document");
        /* A start tag. */
        if (seen_root && !l) return shoal__xml_refuse(r, tag, "a second root element");
        if (l) {
            if (l->text)
                return shoal__xml_refuse(r, l->text, "text beside child elements of <%.*s>", (int)l->name_len, l->name);
            if (!o->oom) o->len = l->text_at;
            l->children = 1;
        }
        if (depth == SHOAL__XML_MAX_DEPTH)
            return shoal__xml_refuse(r, tag, "elements nested deeper than %d", SHOAL__XML_MAX_DEPTH);
        r->p++;
        if (shoal__xml_name(r, "abcdefghijklmnopqrstuvwxyz0123456789_", "element", &len) < 0) return -1;
        if (!seen_root && !(len == 8 && memcmp(tag + 1, "topology", 8) == 0))
            return shoal__xml_refuse(r, tag, "the root element is <%.*s>, not <topology>", (int)len, tag + 1);
        shoal__xml_puts(o, seen_root ? "\n<" : "<");
        tag_out = o->len - 1;
        shoal__xml_put(o, tag + 1, len);
        if ((rc = shoal__xml_attrs(r, o, !seen_root)) < 0) return -1;
        if (!o->oom && len == 6 && memcmp(tag + 1, "object", 6) == 0 &&
            shoal__xml_bad_object(o->buf + tag_out, o->buf + o->len, why, sizeof(why)))
            return shoal__xml_refuse(r, tag, "an object: %s", why);
        if (rc == 1 && !seen_root) return shoal__xml_refuse(r, tag, "an empty <topology/>");
        seen_root = 1;
        shoal__xml_puts(o, rc ? "/>" : ">");
        if (rc == 1 && l) l->text_at = o->len; /* an empty child: the parent's text starts after it */
        if (rc == 0) {
            stack[depth].name = tag + 1;
            stack[depth].name_len = len;
            stack[depth].children = 0;
            stack[depth].text_at = o->len;
            stack[depth].text = NULL;
            depth++;
        }
    }
}

/* ------------------------------------------------------------------ the file */

int shoal__topo_xml_read(const char *path, char **xml_p, size_t *len_p)
{
    enum { MAX_BYTES = 256 << 20 };
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t n = 0, cap = 0;
    int rc = SHOAL_SUCCESS;
    shoal__xml_reader_t r;
    shoal__xml_out_t o = {0};

    *xml_p = NULL;
    *len_p = 0;
    if (!f)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: cannot open topology file '%s': %s", path,
                                 strerror(errno));
    for (;;) {
        size_t got;
        if (n == cap) {
            char *grown;
            if (cap >= MAX_BYTES) {
                rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: topology file '%s' is over %d MiB", path,
                                       MAX_BYTES >> 20);
                goto out;
            }
            cap = cap ? 2 * cap : 1 << 16;
            grown = realloc(text, cap);
            if (grown == NULL) {
                rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory reading '%s'", path);
                goto out;
            }
            text = grown;
        }
        errno = 0;
        got = fread(text + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        /* A directory, say. */
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                               "shoal_topo_load: '%s' is not a valid hwloc XML topology (cannot "
                               "read it: %s)",
                               path, strerror(errno ? errno : EIO));
        goto out;
    }
    memset(&r, 0, sizeof(r));
    r.text = r.p = text;
    r.end = text + n;
    if (shoal__xml_canonical(&r, &o) < 0) {
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                               "shoal_topo_load: '%s' is not a valid hwloc XML topology: at byte %zu: %s", path, r.at,
                               r.why);
        goto out;
    }
    if (o.oom) {
        rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory reading '%s'", path);
        goto out;
    }
    if (o.len > (size_t)INT32_MAX - 1) {
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: topology file '%s' is too large for hwloc", path);
        goto out;
    }
    *xml_p = o.buf;
    *len_p = o.len;
    o.buf = NULL;
out:
    free(o.buf);
    free(text);
    fclose(f);
    return rc;
}
