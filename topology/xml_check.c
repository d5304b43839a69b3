/*
 * The pre-check of an XML topology: objects hwloc must not see. hwloc 2.9
 * crashes, aborts or stalls on some objects it reads without complaint: a
 * cpuset or nodeset without its complete_ form, a set not written as hwloc
 * writes them, a PU or NUMA node whose os_index is missing or too large
 * for the sets built from it. The XML reader (xml.c) hands each object
 * start tag of the canonical form here, so the values are checked as
 * hwloc will read them, and refuses the file with the reason given back.
 * Only hwloc's type names are needed: no other topology file is called.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "topo_xml_check.h"

/* The largest os_index shoal lets hwloc see. hwloc turns a PU's or NUMA
 * node's os_index into a bit of a set sized to hold it, and copies and
 * prints such sets all through the tree: an os_index of 2^31 takes seconds
 * and gigabytes (and an object without one gets 2^32-1). Linux numbers at
 * most 8192 CPUs and 1024 NUMA nodes. */
#define SHOAL__XML_MAX_OS_INDEX 65535u

/* One attribute of an XML start tag, as written (entities not expanded). */
typedef struct shoal__xml_attr {
    const char *name, *value;
    size_t name_len, value_len;
} shoal__xml_attr_t;

/* The next attribute of the start tag at *pp: 1 with *a filled and *pp past
 * it; 0 at the end of the tag, or where it is malformed (hwloc's parser
 * reports that). */
static int shoal__xml_next_attr(const char **pp, const char *end, shoal__xml_attr_t *a)
{
    const char *p = *pp;
    char quote;

    while (p < end && shoal__xml_space(*p)) p++;
    if (p == end || *p == '>' || *p == '/') return 0;
    a->name = p;
    while (p < end && !shoal__xml_space(*p) && *p != '=' && *p != '>' && *p != '/') p++;
    a->name_len = (size_t)(p - a->name);
    while (p < end && shoal__xml_space(*p)) p++;
    if (p == end || *p != '=') return 0;
    for (p++; p < end && shoal__xml_space(*p); p++) continue;
    if (p == end || (*p != '"' && *p != '\'')) return 0;
    quote = *p++;
    a->value = p;
    p = memchr(p, quote, (size_t)(end - p));
    if (p == NULL) return 0;
    a->value_len = (size_t)(p - a->value);
    *pp = p + 1;
    return 1;
}

static int shoal__xml_attr_is(const shoal__xml_attr_t *a, const char *name)
{
    return a->name_len == strlen(name) && memcmp(a->name, name, a->name_len) == 0;
}

/* An os_index as hwloc reads it (strtoul): above the limit, negative, or
 * written with an entity (whose value only the XML parser knows). */
static int shoal__xml_os_index_too_big(const shoal__xml_attr_t *a)
{
    const char *p = a->value, *end = a->value + a->value_len;
    unsigned long long v = 0;
    int neg = 0;

    if (memchr(p, '&', a->value_len) != NULL) return 1;
    while (p < end && (shoal__xml_space(*p) || *p == '\v' || *p == '\f')) p++;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned)(*p - '0');
        if (v > SHOAL__XML_MAX_OS_INDEX) return 1;
    }
    return neg ? v != 0 : v > SHOAL__XML_MAX_OS_INDEX;
}

/* A CPU or NUMA set as hwloc writes it: comma-separated words of up to 16
 * hex digits (with or without 0x; empty for a zero word, except the
 * first), optionally after "0xf...f" (all bits above). hwloc 2.9's parser
 * asserts (aborts the process) on some malformed ones, such as a leading
 * comma. */
static int shoal__xml_bitmap_ok(const shoal__xml_attr_t *a)
{
    const char *p = a->value, *end = a->value + a->value_len;

    if (a->value_len >= 7 && memcmp(p, "0xf...f", 7) == 0) {
        p += 7;
        if (p == end) return 1;
        if (*p++ != ',') return 0;
    }
    if (p == end || *p == ',') return 0;
    for (;;) {
        int digits = 0;
        if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
        while (p < end && isxdigit((unsigned char)*p) && digits <= 16) p++, digits++;
        if (digits > 16) return 0;
        if (p == end) return 1;
        if (*p++ != ',') return 0;
        if (p == end) return 0;  /* a trailing comma */
        if (*p == ',') continue; /* an empty (zero) word */
    }
}

/* A canonical value (escaped with the seven escapes of the canonical form
 * only) decoded into buf[len], NUL-terminated; 0 if it does not fit. */
static int shoal__xml_unescape(const shoal__xml_attr_t *a, char *buf, size_t len)
{
    static const struct {
        const char *esc;
        char c;
    } escs[] = {{"&quot;", '"'}, {"&lt;", '<'},   {"&gt;", '>'}, {"&amp;", '&'},
                {"&#10;", '\n'}, {"&#13;", '\r'}, {"&#9;", '\t'}};
    size_t n = 0;

    for (const char *p = a->value, *end = a->value + a->value_len; p < end;) {
        char c = *p++;
        if (c == '&')
            for (size_t i = 0; i < sizeof(escs) / sizeof(escs[0]); i++) {
                size_t k = strlen(escs[i].esc) - 1;
                if ((size_t)(end - p) >= k && memcmp(p, escs[i].esc + 1, k) == 0) {
                    c = escs[i].c;
                    p += k;
                    break;
                }
            }
        if (n + 1 >= len) return 0;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return 1;
}

/* Whether an object start tag of the canonical form (at tag, up to end)
 * must not reach hwloc; why in why[] if so:
 *  - a cpuset or nodeset without the complete_ one that hwloc always
 *    writes beside it: hwloc 2.9 dereferences the missing set in
 *    hwloc_topology_load and crashes (lstopo -i too);
 *  - a PU or NUMA node (the type as hwloc reads it: any case, any prefix
 *    hwloc_type_sscanf takes) with an os_index above
 *    SHOAL__XML_MAX_OS_INDEX, or without one (hwloc always writes theirs);
 *  - a set hwloc's parser could abort on (see shoal__xml_bitmap_ok).
 * The values are checked as hwloc will read them: entities and character
 * references are already decoded in the canonical form. */
int shoal__xml_bad_object(const char *tag, const char *end, char *why, size_t why_len)
{
    static const char *const set_names[4] = {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset"};
    const char *p = tag + 7; /* past "<object" */
    shoal__xml_attr_t a;
    int sets[4] = {0, 0, 0, 0}, indexed = 0, has_index = 0;
    shoal__xml_attr_t big_index = {0}; /* an os_index too big for a set, if any */

    while (shoal__xml_next_attr(&p, end, &a)) {
        /* cpuset, nodeset, and their complete_ and allowed_ forms */
        int is_set = (a.name_len >= 6 && memcmp(a.name + a.name_len - 6, "cpuset", 6) == 0) ||
                     (a.name_len >= 7 && memcmp(a.name + a.name_len - 7, "nodeset", 7) == 0);
        for (int i = 0; i < 4; i++) sets[i] |= shoal__xml_attr_is(&a, set_names[i]);
        if (is_set && !shoal__xml_bitmap_ok(&a)) {
            snprintf(why, why_len,
                     "its %.*s \"%.*s\" is not a set as hwloc writes them (hwloc could abort "
                     "reading it)",
                     (int)a.name_len, a.name, a.value_len > 24 ? 24 : (int)a.value_len, a.value);
            return 1;
        }
        if (shoal__xml_attr_is(&a, "type")) {
            char type[64];
            hwloc_obj_type_t t;
            indexed = shoal__xml_unescape(&a, type, sizeof(type)) && hwloc_type_sscanf(type, &t, NULL, 0) == 0 &&
                      (t == HWLOC_OBJ_PU || t == HWLOC_OBJ_NUMANODE);
        } else if (shoal__xml_attr_is(&a, "os_index")) {
            has_index = 1;
            if (shoal__xml_os_index_too_big(&a)) big_index = a;
        }
    }
    /* Only PU and NUMA node numbers become bits of sets (either attribute
     * may come first); a package or core may carry any number (ACPI table
     * offsets on some arm64 machines). */
    if (indexed && big_index.name != NULL) {
        snprintf(why, why_len,
                 "a PU or NUMANode os_index \"%.*s\" is out of range (0 to %u; hwloc would build "
                 "CPU and NUMA sets that large)",
                 big_index.value_len > 24 ? 24 : (int)big_index.value_len, big_index.value, SHOAL__XML_MAX_OS_INDEX);
        return 1;
    }
    if (indexed && !has_index) {
        snprintf(why, why_len,
                 "a PU or NUMANode without os_index (hwloc would number it 4294967295 and build CPU "
                 "and NUMA sets that large)");
        return 1;
    }
    if ((sets[0] && !sets[1]) || (sets[2] && !sets[3])) {
        snprintf(why, why_len,
                 "it has a cpuset or nodeset without its complete_cpuset or complete_nodeset (hwloc "
                 "would crash loading it)");
        return 1;
    }
    return 0;
}
