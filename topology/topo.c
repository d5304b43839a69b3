/*
 * Loading the machine model: hwloc discovers (or reads from XML) the CPUs,
 * the PCI tree and its devices; this file picks out packages, NUMA nodes,
 * cores, GPUs and NICs, completes the NVLink matrix, and answers the
 * accessors of shoal_topo.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup, strcasecmp under -std=c11 */
#endif
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo_internal.h"

/* The only mutable global of the topology code: one message per thread. */
static _Thread_local char shoal__topo_errbuf[512];

int shoal__topo_error(int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(shoal__topo_errbuf, sizeof(shoal__topo_errbuf), fmt, ap);
    va_end(ap);
    return status;
}

const char *shoal_topo_last_error(void) { return shoal__topo_errbuf; }

/* ---------------------------------------------------------------- PCI helpers */

int shoal__topo_is_gpu(hwloc_obj_t obj)
{
    return obj && obj->type == HWLOC_OBJ_PCI_DEVICE &&
           obj->attr->pcidev.vendor_id == SHOAL__PCI_VENDOR_NVIDIA &&
           (obj->attr->pcidev.class_id >> 8) == SHOAL__PCI_BASECLASS_DISPLAY;
}

int shoal__topo_is_nvswitch(hwloc_obj_t obj)
{
    if (!obj || obj->type != HWLOC_OBJ_PCI_DEVICE) return 0;
    /* hwloc's NVML backend tags the switches it meets; without it, NVIDIA's
     * "bridge, other" class is what an NVSwitch reports. */
    if (obj->subtype && strcmp(obj->subtype, "NVSwitch") == 0) return 1;
    return obj->attr->pcidev.vendor_id == SHOAL__PCI_VENDOR_NVIDIA &&
           obj->attr->pcidev.class_id == SHOAL__PCI_CLASS_BRIDGE_OTHER;
}

void shoal__topo_busid(hwloc_obj_t pci, char buf[16])
{
    snprintf(buf, 16, "%04x:%02x:%02x.%01x", (unsigned)pci->attr->pcidev.domain,
             (unsigned)pci->attr->pcidev.bus, (unsigned)pci->attr->pcidev.dev,
             (unsigned)pci->attr->pcidev.func);
}

/* Parse one hex field of at most max_digits digits ending at one of stop. */
static const char *shoal__parse_hex(const char *s, unsigned max_digits, unsigned *v_p)
{
    unsigned v = 0, n = 0;

    while (n < max_digits) {
        char c = s[n];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else break;
        v = v * 16 + d;
        n++;
    }
    if (n == 0) return NULL;
    *v_p = v;
    return s + n;
}

int shoal__topo_busid_parse(const char *s, unsigned *domain_p, unsigned *bus_p, unsigned *dev_p,
                            unsigned *func_p)
{
    unsigned f[3], func, domain = 0;
    const char *p = s;
    int n = 0;

    if (!s) return SHOAL_ERR_INVALID_ARG;
    /* Up to three colon-separated fields (domain optional: CUDA writes 4
     * domain digits, NVML 8), then ".function". */
    for (;;) {
        p = shoal__parse_hex(p, 8, &f[n]);
        if (!p) return SHOAL_ERR_INVALID_ARG;
        n++;
        if (*p != ':' || n == 3) break;
        p++;
    }
    if (n < 2 || *p != '.') return SHOAL_ERR_INVALID_ARG;
    p = shoal__parse_hex(p + 1, 1, &func);
    if (!p || *p != '\0') return SHOAL_ERR_INVALID_ARG;
    if (n == 3) domain = f[0];
    if (f[n - 2] > 0xff || f[n - 1] > 0x1f || func > 7) return SHOAL_ERR_INVALID_ARG;
    *domain_p = domain;
    *bus_p = f[n - 2];
    *dev_p = f[n - 1];
    *func_p = func;
    return SHOAL_SUCCESS;
}

static int shoal__pci_cmp(hwloc_obj_t a, hwloc_obj_t b)
{
    const struct hwloc_pcidev_attr_s *x = &a->attr->pcidev, *y = &b->attr->pcidev;
    if (x->domain != y->domain) return x->domain < y->domain ? -1 : 1;
    if (x->bus != y->bus) return x->bus < y->bus ? -1 : 1;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->func != y->func) return x->func < y->func ? -1 : 1;
    return 0;
}

static int shoal__gpu_cmp(const void *a, const void *b)
{
    return shoal__pci_cmp(((const shoal__topo_gpu_t *)a)->pci, ((const shoal__topo_gpu_t *)b)->pci);
}

/* PCI-less NICs sort after the others and keep their discovery order. */
static int shoal__nic_cmp(const void *a, const void *b)
{
    const shoal__topo_nic_t *x = a, *y = b;
    int xp = x->obj->type == HWLOC_OBJ_PCI_DEVICE, yp = y->obj->type == HWLOC_OBJ_PCI_DEVICE;
    if (xp && yp) return shoal__pci_cmp(x->obj, y->obj);
    if (xp != yp) return xp ? -1 : 1;
    return x->obj->logical_index < y->obj->logical_index ? -1 : x->obj->logical_index > y->obj->logical_index;
}

/* ---------------------------------------------------------------- model building */

/* "name" of a GPU: the PCI database name hwloc found, else a GPU model an
 * OS device below it reports, else "". */
static char *shoal__gpu_name(hwloc_obj_t pci)
{
    const char *name = hwloc_obj_get_info_by_name(pci, "PCIDevice");
    hwloc_obj_t child;

    for (child = pci->io_first_child; !name && child; child = child->next_sibling)
        name = hwloc_obj_get_info_by_name(child, "GPUModel");
    return strdup(name ? name : "");
}

static int shoal__gpus_find(shoal_topo_t topo)
{
    hwloc_obj_t obj = NULL;
    int n = 0, i;

    while ((obj = hwloc_get_next_pcidev(topo->hw, obj)) != NULL)
        n += shoal__topo_is_gpu(obj);
    if (n == 0) return SHOAL_SUCCESS;
    topo->gpus = calloc((size_t)n, sizeof(*topo->gpus));
    if (!topo->gpus) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory for %d GPUs", n);
    while ((obj = hwloc_get_next_pcidev(topo->hw, obj)) != NULL)
        if (shoal__topo_is_gpu(obj)) topo->gpus[topo->n_gpus++].pci = obj;
    /* hwloc lists PCI devices in tree order; users count GPUs in bus order,
     * as CUDA_DEVICE_ORDER=PCI_BUS_ID and nvidia-smi do. */
    qsort(topo->gpus, (size_t)topo->n_gpus, sizeof(*topo->gpus), shoal__gpu_cmp);
    /* Two GPUs at one PCI address (an XML edited or merged by hand): which
     * one a CUDA device is cannot be told, so the pairs would be wrong. */
    for (i = 1; i < topo->n_gpus; i++)
        if (shoal__gpu_cmp(&topo->gpus[i - 1], &topo->gpus[i]) == 0) {
            char id[16];
            shoal__topo_busid(topo->gpus[i].pci, id);
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: two GPUs have PCI bus id %s; a topology lists each PCI "
                                     "device once (was the XML edited or merged by hand?)",
                                     id);
        }

    for (i = 0; i < topo->n_gpus; i++) {
        shoal__topo_gpu_t *g = &topo->gpus[i];
        g->nic = -1;
        g->numa = -1;
        shoal__topo_busid(g->pci, g->bus_id);
        g->near = hwloc_get_non_io_ancestor_obj(topo->hw, g->pci);
        g->name = shoal__gpu_name(g->pci);
        if (!g->name) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        if (g->near && g->near->cpuset) {
            if (hwloc_bitmap_list_asprintf(&g->cpuset, g->near->cpuset) < 0)
                return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        } else if (!(g->cpuset = strdup(""))) {
            return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        }
        /* A GPU near exactly one NUMA node has that node; one attached to a
         * whole multi-node machine has none in particular. */
        if (g->near && g->near->nodeset && hwloc_bitmap_weight(g->near->nodeset) == 1) {
            hwloc_obj_t numa = hwloc_get_numanode_obj_by_os_index(topo->hw, (unsigned)hwloc_bitmap_first(g->near->nodeset));
            if (numa) g->numa = (int)numa->logical_index;
        }
    }
    return SHOAL_SUCCESS;
}

/* Append name to a NIC's comma-separated OS device names. */
static int shoal__nic_add_name(shoal__topo_nic_t *nic, const char *name)
{
    size_t old = nic->name ? strlen(nic->name) : 0;
    char *s;

    if (!name || !*name) return SHOAL_SUCCESS;
    s = realloc(nic->name, old + strlen(name) + 2);
    if (!s) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
    if (old) s[old++] = ',';
    strcpy(s + old, name);
    nic->name = s;
    return SHOAL_SUCCESS;
}

static shoal__topo_nic_t *shoal__nic_lookup(shoal_topo_t topo, hwloc_obj_t obj)
{
    for (int i = 0; i < topo->n_nics; i++)
        if (topo->nics[i].obj == obj) return &topo->nics[i];
    return NULL;
}

static int shoal__nics_find(shoal_topo_t topo)
{
    hwloc_obj_t obj = NULL;
    int cap = 0, rc;

    /* Upper bound: every network PCI device plus every network OS device. */
    while ((obj = hwloc_get_next_pcidev(topo->hw, obj)) != NULL) cap++;
    while ((obj = hwloc_get_next_osdev(topo->hw, obj)) != NULL) cap++;
    if (cap == 0) return SHOAL_SUCCESS;
    topo->nics = calloc((size_t)cap, sizeof(*topo->nics));
    if (!topo->nics) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");

    while ((obj = hwloc_get_next_pcidev(topo->hw, obj)) != NULL)
        if ((obj->attr->pcidev.class_id >> 8) == SHOAL__PCI_BASECLASS_NETWORK)
            topo->nics[topo->n_nics++].obj = obj;

    /* OS devices name the NICs (eth0, mlx5_0), and find the NICs whose PCI
     * class is not "network" (older InfiniBand HCAs) or that have no PCI
     * device at all. */
    while ((obj = hwloc_get_next_osdev(topo->hw, obj)) != NULL) {
        hwloc_obj_t pci = obj->parent;
        shoal__topo_nic_t *nic;

        if (obj->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK &&
            obj->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
            continue;
        while (pci && pci->type != HWLOC_OBJ_PCI_DEVICE && hwloc_obj_type_is_io(pci->type)) pci = pci->parent;
        if (!pci || pci->type != HWLOC_OBJ_PCI_DEVICE) pci = obj;
        nic = shoal__nic_lookup(topo, pci);
        if (!nic) {
            nic = &topo->nics[topo->n_nics++];
            nic->obj = pci;
        }
        if ((rc = shoal__nic_add_name(nic, obj->name)) < 0) return rc;
    }
    qsort(topo->nics, (size_t)topo->n_nics, sizeof(*topo->nics), shoal__nic_cmp);
    for (int i = 0; i < topo->n_nics; i++) {
        shoal__topo_nic_t *nic = &topo->nics[i];
        if (nic->obj->type == HWLOC_OBJ_PCI_DEVICE) shoal__topo_busid(nic->obj, nic->bus_id);
        if (!nic->name && !(nic->name = strdup("")))
            return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
    }
    return SHOAL_SUCCESS;
}

/* Nearest NIC of each GPU by PCI path; the lower index wins a tie. */
static void shoal__gpus_nearest_nic(shoal_topo_t topo)
{
    for (int g = 0; g < topo->n_gpus; g++) {
        shoal_path_t best = SHOAL_PATH_COUNT;
        for (int n = 0; n < topo->n_nics; n++) {
            shoal_path_t p = shoal__topo_pci_path(topo->gpus[g].pci, topo->nics[n].obj);
            if (p < best) {
                best = p;
                topo->gpus[g].nic = n;
            }
        }
    }
}

/* NVLink counts: an "NVLinkBandwidth" matrix already in the topology wins
 * (an XML made where hwloc had NVML); else, on the live machine only, NVML
 * is asked and its answer added to the topology, so an export carries it. */
static int shoal__nvlinks_find(shoal_topo_t topo)
{
    shoal__nvlink_probe_t probe;
    int rc, found = 0;
    /* At least one entry: a matrix is read (and checked) even without GPUs. */
    size_t nn = topo->n_gpus ? (size_t)topo->n_gpus * (size_t)topo->n_gpus : 1;

    topo->nvlinks = calloc(nn, sizeof(*topo->nvlinks));
    topo->nvswitch = calloc(nn, sizeof(*topo->nvswitch));
    topo->paths = calloc(nn, sizeof(*topo->paths));
    if (!topo->nvlinks || !topo->nvswitch || !topo->paths)
        return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");

    if ((rc = shoal__nvlink_read(topo, &found)) < 0) return rc;
    if (found) {
        topo->nvlink_source = SHOAL__NVLINK_HWLOC;
        return SHOAL_SUCCESS;
    }
    if (!topo->live || topo->n_gpus < 2) return SHOAL_SUCCESS;

    /* The probe holds at most one switch per link of every GPU. */
    if ((rc = shoal__nvlink_probe_init(&probe, topo->n_gpus, topo->n_gpus * 18)) < 0) return rc;
    rc = shoal__nvml_probe(topo, &probe, &found);
    if (rc < 0 || !found) goto out_probe;
    if ((rc = shoal__nvlink_store(topo, &probe)) < 0) goto out_probe;
    if ((rc = shoal__nvlink_read(topo, &found)) < 0) goto out_probe;
    if (found) topo->nvlink_source = SHOAL__NVLINK_NVML;
out_probe:
    shoal__nvlink_probe_fini(&probe);
    return rc;
}

static int shoal__topo_build(shoal_topo_t topo)
{
    int rc;

    topo->n_packages = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PACKAGE);
    topo->n_numa = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
    topo->n_cores = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_CORE);
    if ((rc = shoal__gpus_find(topo)) < 0) return rc;
    if ((rc = shoal__nics_find(topo)) < 0) return rc;
    shoal__gpus_nearest_nic(topo);
    if ((rc = shoal__nvlinks_find(topo)) < 0) return rc;
    shoal__topo_paths_fill(topo);
    return SHOAL_SUCCESS;
}

/* ---------------------------------------------------------------- load / destroy */

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

static int shoal__xml_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

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
        if (p == end) return 0; /* a trailing comma */
        if (*p == ',') continue; /* an empty (zero) word */
    }
}

/* The first <object> start tag hwloc must not see, with why in why[]:
 *  - a cpuset or nodeset without the complete_ one that hwloc always
 *    writes beside it: hwloc 2.9 dereferences the missing set in
 *    hwloc_topology_load and crashes (lstopo -i too);
 *  - an os_index above SHOAL__XML_MAX_OS_INDEX, or a PU or NUMA node
 *    without one (hwloc always writes theirs);
 *  - a type written with an entity (only the XML parser knows which);
 *  - a set hwloc's parser could abort on (see shoal__xml_bitmap_ok).
 * Comments, CDATA sections and processing instructions are skipped. */
static const char *shoal__xml_bad_object(const char *text, const char *end, char *why, size_t why_len)
{
    static const struct {
        const char *open, *close;
    } skips[] = {{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}};
    static const char *const set_names[4] = {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset"};
    const char *p = text;

    while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        const char *obj = p, *q;
        shoal__xml_attr_t a;
        int sets[4] = {0, 0, 0, 0}, skipped = 0, indexed = 0, has_index = 0;
        shoal__xml_attr_t big_index = {0}; /* an os_index too big for a set, if any */

        for (size_t i = 0; i < sizeof(skips) / sizeof(skips[0]); i++) {
            size_t n = strlen(skips[i].open);
            if ((size_t)(end - p) >= n && memcmp(p, skips[i].open, n) == 0) {
                q = memmem(p + n, (size_t)(end - p - n), skips[i].close, strlen(skips[i].close));
                if (q == NULL) return NULL; /* unterminated: the parser says so */
                p = q + strlen(skips[i].close);
                skipped = 1;
                break;
            }
        }
        if (skipped) continue;
        p++;
        if ((size_t)(end - p) < 7 || memcmp(p, "object", 6) != 0 || !(shoal__xml_space(p[6]) || p[6] == '>' || p[6] == '/'))
            continue;
        for (p += 6; shoal__xml_next_attr(&p, end, &a);) {
            /* cpuset, nodeset, and their complete_ and allowed_ forms */
            int is_set = (a.name_len >= 6 && memcmp(a.name + a.name_len - 6, "cpuset", 6) == 0) ||
                         (a.name_len >= 7 && memcmp(a.name + a.name_len - 7, "nodeset", 7) == 0);
            for (int i = 0; i < 4; i++) sets[i] |= shoal__xml_attr_is(&a, set_names[i]);
            if (is_set && !shoal__xml_bitmap_ok(&a)) {
                snprintf(why, why_len, "its %.*s \"%.*s\" is not a set as hwloc writes them (hwloc could abort "
                         "reading it)", (int)a.name_len, a.name, a.value_len > 24 ? 24 : (int)a.value_len, a.value);
                return obj;
            }
            if (shoal__xml_attr_is(&a, "type")) {
                if (memchr(a.value, '&', a.value_len) != NULL) {
                    snprintf(why, why_len, "its type is written with an entity");
                    return obj;
                }
                indexed = (a.value_len == 2 && memcmp(a.value, "PU", 2) == 0) ||
                          (a.value_len == 8 && memcmp(a.value, "NUMANode", 8) == 0);
            } else if (shoal__xml_attr_is(&a, "os_index")) {
                has_index = 1;
                if (shoal__xml_os_index_too_big(&a)) big_index = a;
            }
        }
        /* Only PU and NUMA node numbers become bits of sets (either attribute
         * may come first); a package or core may carry any number (ACPI
         * table offsets on some arm64 machines). */
        if (indexed && big_index.name != NULL) {
            snprintf(why, why_len, "a PU or NUMANode os_index \"%.*s\" is out of range (0 to %u; hwloc would build "
                     "CPU and NUMA sets that large)", big_index.value_len > 24 ? 24 : (int)big_index.value_len,
                     big_index.value, SHOAL__XML_MAX_OS_INDEX);
            return obj;
        }
        if (indexed && !has_index) {
            snprintf(why, why_len, "a PU or NUMANode without os_index (hwloc would number it 4294967295 and build CPU "
                     "and NUMA sets that large)");
            return obj;
        }
        if ((sets[0] && !sets[1]) || (sets[2] && !sets[3])) {
            snprintf(why, why_len, "it has a cpuset or nodeset without its complete_cpuset or complete_nodeset (hwloc "
                     "would crash loading it)");
            return obj;
        }
    }
    return NULL;
}

/* Before hwloc sees the file: a missing or unreadable one (hwloc reports it
 * as malformed, errno EINVAL) and objects hwloc would crash or stall on. */
static int shoal__xml_precheck(const char *path)
{
    enum { MAX_BYTES = 256 << 20 };
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    const char *bad;
    char why[160];
    size_t n = 0, cap = 0;
    int rc = SHOAL_SUCCESS;

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
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: '%s' is not a valid hwloc XML topology (cannot "
                               "read it: %s)", path, strerror(errno ? errno : EIO));
        goto out;
    }
    if ((bad = shoal__xml_bad_object(text, text + n, why, sizeof(why))) != NULL)
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                               "shoal_topo_load: '%s' is not a valid hwloc XML topology: the object at byte %zu: %s",
                               path, (size_t)(bad - text), why);
out:
    free(text);
    fclose(f);
    return rc;
}

static int shoal__hwloc_load(shoal_topo_t topo, const char *xml_path)
{
    int rc;

    if (hwloc_topology_init(&topo->hw) < 0) {
        topo->hw = NULL;
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_topology_init failed: %s", strerror(errno));
    }
    if (xml_path) {
        if ((rc = shoal__xml_precheck(xml_path)) < 0) return rc;
        /* Keep everything the file holds, so an export gives it back whole. */
        if (hwloc_topology_set_all_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_ALL) < 0)
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_topology_set_all_types_filter failed: %s",
                                     strerror(errno));
        /* hwloc parses the file here already. */
        if (hwloc_topology_set_xml(topo->hw, xml_path) < 0)
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: '%s' is not a valid hwloc XML topology (hwloc_topology_set_xml: %s)",
                                     xml_path, strerror(errno));
    } else {
        /* Important I/O objects: bridges leading somewhere, OS devices; and
         * every PCI device, so NVSwitches (class 0680) are never dropped. */
        if (hwloc_topology_set_io_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0 ||
            hwloc_topology_set_type_filter(topo->hw, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL) < 0)
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: cannot enable hwloc I/O discovery: %s",
                                     strerror(errno));
        topo->live = 1;
    }
    if (hwloc_topology_load(topo->hw) < 0) {
        if (xml_path)
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: '%s' is not a valid hwloc XML topology (hwloc_topology_load: %s)",
                                     xml_path, strerror(errno));
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_topology_load failed: %s", strerror(errno));
    }
    return SHOAL_SUCCESS;
}

int shoal_topo_load(const char *xml_path, shoal_topo_t *topo_p)
{
    shoal_topo_t topo;
    int rc;

    if (!topo_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_load: topo_p is NULL");
    if (!xml_path) {
        const char *env = getenv("SHOAL_TOPO_FILE");
        if (env && *env) xml_path = env;
    } else if (!*xml_path) {
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_load: empty topology file name");
    }
    topo = calloc(1, sizeof(*topo));
    if (!topo) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
    if ((rc = shoal__hwloc_load(topo, xml_path)) < 0) goto out_destroy;
    if ((rc = shoal__topo_build(topo)) < 0) goto out_destroy;
    *topo_p = topo;
    return SHOAL_SUCCESS;

out_destroy:
    shoal_topo_destroy(topo);
    return rc;
}

void shoal_topo_destroy(shoal_topo_t topo)
{
    if (!topo) return;
    for (int i = 0; i < topo->n_gpus; i++) {
        free(topo->gpus[i].name);
        free(topo->gpus[i].cpuset); /* hwloc_bitmap_list_asprintf and strdup both malloc */
    }
    for (int i = 0; i < topo->n_nics; i++) free(topo->nics[i].name);
    free(topo->gpus);
    free(topo->nics);
    free(topo->nvlinks);
    free(topo->nvswitch);
    free(topo->paths);
    if (topo->hw) hwloc_topology_destroy(topo->hw);
    free(topo);
}

/* ---------------------------------------------------------------- accessors */

#define SHOAL__TOPO_CHECK(topo, call)                                                    \
    do {                                                                                 \
        if (!(topo)) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "%s: topo is NULL", (call)); \
    } while (0)

int shoal_topo_n_packages(shoal_topo_t topo)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_n_packages");
    return topo->n_packages;
}

int shoal_topo_n_numa(shoal_topo_t topo)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_n_numa");
    return topo->n_numa;
}

int shoal_topo_n_cores(shoal_topo_t topo)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_n_cores");
    return topo->n_cores;
}

int shoal_topo_n_gpus(shoal_topo_t topo)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_n_gpus");
    return topo->n_gpus;
}

int shoal_topo_n_nics(shoal_topo_t topo)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_n_nics");
    return topo->n_nics;
}

int shoal_topo_gpu(shoal_topo_t topo, int index, shoal_topo_gpu_t *gpu_p)
{
    const shoal__topo_gpu_t *g;

    SHOAL__TOPO_CHECK(topo, "shoal_topo_gpu");
    if (!gpu_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_gpu: gpu_p is NULL");
    if (index < 0 || index >= topo->n_gpus)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_gpu: GPU %d out of range (the topology has %d)",
                                 index, topo->n_gpus);
    g = &topo->gpus[index];
    gpu_p->index = index;
    gpu_p->pci_bus_id = g->bus_id;
    gpu_p->name = g->name;
    gpu_p->numa_node = g->numa;
    gpu_p->cpuset = g->cpuset;
    gpu_p->nic = g->nic;
    return SHOAL_SUCCESS;
}

int shoal_topo_nic(shoal_topo_t topo, int index, shoal_topo_nic_t *nic_p)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_nic");
    if (!nic_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_nic: nic_p is NULL");
    if (index < 0 || index >= topo->n_nics)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_nic: NIC %d out of range (the topology has %d)",
                                 index, topo->n_nics);
    nic_p->index = index;
    nic_p->pci_bus_id = topo->nics[index].bus_id;
    nic_p->name = topo->nics[index].name;
    return SHOAL_SUCCESS;
}

int shoal_topo_gpu_find(shoal_topo_t topo, const char *pci_bus_id)
{
    unsigned domain, bus, dev, func;

    SHOAL__TOPO_CHECK(topo, "shoal_topo_gpu_find");
    if (shoal__topo_busid_parse(pci_bus_id, &domain, &bus, &dev, &func) < 0)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                                 "shoal_topo_gpu_find: '%s' is not a PCI bus id (expected like 0000:19:00.0)",
                                 pci_bus_id ? pci_bus_id : "(null)");
    for (int i = 0; i < topo->n_gpus; i++) {
        const struct hwloc_pcidev_attr_s *a = &topo->gpus[i].pci->attr->pcidev;
        if (a->domain == domain && a->bus == bus && a->dev == dev && a->func == func) return i;
    }
    return shoal__topo_error(SHOAL_ERR_NO_DEVICE, "shoal_topo_gpu_find: no GPU at PCI %s in the topology (%d GPUs)",
                             pci_bus_id, topo->n_gpus);
}

int shoal_topo_gpu_path(shoal_topo_t topo, int a, int b, shoal_path_t *path_p, int *nvlinks_p)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_gpu_path");
    if (a < 0 || a >= topo->n_gpus || b < 0 || b >= topo->n_gpus)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_gpu_path: GPU pair %d-%d out of range (%d GPUs)", a,
                                 b, topo->n_gpus);
    if (path_p) *path_p = (shoal_path_t)topo->paths[a * topo->n_gpus + b];
    if (nvlinks_p) *nvlinks_p = topo->nvlinks[a * topo->n_gpus + b];
    return SHOAL_SUCCESS;
}

int shoal_topo_gpu_nvswitch(shoal_topo_t topo, int a, int b)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_gpu_nvswitch");
    if (a < 0 || a >= topo->n_gpus || b < 0 || b >= topo->n_gpus)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_gpu_nvswitch: GPU pair %d-%d out of range (%d GPUs)",
                                 a, b, topo->n_gpus);
    return topo->nvswitch[a * topo->n_gpus + b];
}

const char *shoal_topo_nvlink_source(shoal_topo_t topo)
{
    if (!topo) return "none";
    switch (topo->nvlink_source) {
    case SHOAL__NVLINK_HWLOC: return "hwloc";
    case SHOAL__NVLINK_NVML: return "nvml";
    default: return "none";
    }
}

/* The process binding only means something for the machine we run on. */
static int shoal__cpubind_get(shoal_topo_t topo, const char *call, hwloc_bitmap_t set)
{
    if (!topo->live || !hwloc_topology_is_thissystem(topo->hw))
        return shoal__topo_error(SHOAL_ERR_UNSUPPORTED, "%s: the topology was loaded from a file, not this machine", call);
    if (hwloc_get_cpubind(topo->hw, set, HWLOC_CPUBIND_PROCESS) < 0)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "%s: hwloc_get_cpubind failed: %s", call, strerror(errno));
    return SHOAL_SUCCESS;
}

int shoal_topo_cpubind(shoal_topo_t topo, char *buf, size_t len)
{
    hwloc_bitmap_t set;
    int rc;

    SHOAL__TOPO_CHECK(topo, "shoal_topo_cpubind");
    if (!buf || len == 0) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_cpubind: empty buffer");
    if (!(set = hwloc_bitmap_alloc())) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_cpubind: out of memory");
    if ((rc = shoal__cpubind_get(topo, "shoal_topo_cpubind", set)) < 0) goto out_free;
    if (hwloc_bitmap_list_snprintf(buf, len, set) < 0)
        rc = shoal__topo_error(SHOAL_ERR_INTERNAL, "shoal_topo_cpubind: hwloc_bitmap_list_snprintf failed");
out_free:
    hwloc_bitmap_free(set);
    return rc;
}

int shoal_topo_gpu_near_binding(shoal_topo_t topo, int gpu)
{
    hwloc_bitmap_t set;
    const shoal__topo_gpu_t *g;
    int rc;

    SHOAL__TOPO_CHECK(topo, "shoal_topo_gpu_near_binding");
    if (gpu < 0 || gpu >= topo->n_gpus)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_gpu_near_binding: GPU %d out of range (%d GPUs)", gpu,
                                 topo->n_gpus);
    g = &topo->gpus[gpu];
    if (!(set = hwloc_bitmap_alloc()))
        return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_gpu_near_binding: out of memory");
    if ((rc = shoal__cpubind_get(topo, "shoal_topo_gpu_near_binding", set)) < 0) goto out_free;
    /* A GPU with no CPU locality (attached to nothing) is near everything. */
    rc = (!g->near || !g->near->cpuset) ? 1 : hwloc_bitmap_intersects(set, g->near->cpuset);
out_free:
    hwloc_bitmap_free(set);
    return rc;
}

int shoal_topo_export_xml(shoal_topo_t topo, const char *path)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_export_xml");
    if (!path || !*path) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_export_xml: no file name");
    if (hwloc_topology_export_xml(topo->hw, path, 0) < 0)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_export_xml: cannot write '%s': %s", path,
                                 strerror(errno));
    return SHOAL_SUCCESS;
}
