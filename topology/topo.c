/*
 * Loading the machine model: hwloc discovers (or reads from XML) the CPUs,
 * the PCI tree and its devices; this file picks out packages, NUMA nodes,
 * cores, GPUs and NICs, completes the NVLink matrix, and answers the
 * accessors of shoal_topo.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup under -std=c11 */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_error.h"
#include "topo_model.h"
#include "topo_nvlink.h"
#include "topo_nvml.h"
#include "topo_path.h"
#include "topo_pci.h"
#include "topo_xml.h"

/* ---------------------------------------------------------------- sort orders */

/* PCI address order: domain, bus, device, function. */
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

/* The NUMA node of a device whose first non-I/O ancestor is near: a device
 * near exactly one NUMA node has that node; one attached to a whole
 * multi-node machine has none in particular (-1). */
static int shoal__near_numa(shoal_topo_t topo, hwloc_obj_t near)
{
    hwloc_obj_t numa;

    if (!near || !near->nodeset || hwloc_bitmap_weight(near->nodeset) != 1) return -1;
    numa = hwloc_get_numanode_obj_by_os_index(topo->hw, (unsigned)hwloc_bitmap_first(near->nodeset));
    return numa ? (int)numa->logical_index : -1;
}

static int shoal__gpus_find(shoal_topo_t topo)
{
    hwloc_obj_t obj = NULL;
    int n = 0, i;

    while ((obj = hwloc_get_next_pcidev(topo->hw, obj)) != NULL) n += shoal__topo_is_gpu(obj);
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
        unsigned d, b, v, f;
        g->nic = -1;
        g->numa = -1;
        shoal__topo_busid(g->pci, g->bus_id);
        /* A device number above 1f or a function above 7 is no PCI address
         * (a damaged XML): the GPU could never be found by its bus id. */
        if (shoal__topo_busid_parse(g->bus_id, &d, &b, &v, &f) != SHOAL_SUCCESS)
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: a GPU has PCI address %s, which is not one (device above 1f "
                                     "or function above 7: was the XML edited by hand?)",
                                     g->bus_id);
        g->near = hwloc_get_non_io_ancestor_obj(topo->hw, g->pci);
        g->name = shoal__gpu_name(g->pci);
        if (!g->name) return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        if (g->near && g->near->cpuset) {
            if (hwloc_bitmap_list_asprintf(&g->cpuset, g->near->cpuset) < 0)
                return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        } else if (!(g->cpuset = strdup(""))) {
            return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        }
        g->numa = shoal__near_numa(topo, g->near);
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
        if ((obj->attr->pcidev.class_id >> 8) == SHOAL__PCI_BASECLASS_NETWORK) topo->nics[topo->n_nics++].obj = obj;

    /* OS devices name the NICs (eth0, mlx5_0), and find the NICs whose PCI
     * class is not "network" (older InfiniBand HCAs) or that have no PCI
     * device at all. */
    while ((obj = hwloc_get_next_osdev(topo->hw, obj)) != NULL) {
        hwloc_obj_t pci = obj->parent;
        shoal__topo_nic_t *nic;

        if (obj->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK && obj->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
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
        nic->numa = shoal__near_numa(topo, hwloc_get_non_io_ancestor_obj(topo->hw, nic->obj));
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
        if (!topo->gpus[g].pci) continue; /* a GPU from NVML: where it sits is unknown */
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

    if (!topo->pci_missing) {
        if ((rc = shoal__nvlink_read(topo, &found)) < 0) return rc;
        if (found) {
            topo->nvlink_source = SHOAL__NVLINK_HWLOC;
            return SHOAL_SUCCESS;
        }
    }
    if (!topo->live || topo->n_gpus < 2) return SHOAL_SUCCESS;

    /* The probe holds at most one switch per link of every GPU. */
    if ((rc = shoal__nvlink_probe_init(&probe, topo->n_gpus, topo->n_gpus * 18)) < 0) return rc;
    rc = shoal__nvml_probe(topo, &probe, &found);
    if (rc < 0 || !found) goto out_probe;
    if (topo->pci_missing) {
        /* GPUs without PCI objects: no hwloc matrix can name them. */
        shoal__nvlink_from_probe(topo, &probe);
        topo->nvlink_source = SHOAL__NVLINK_NVML;
        goto out_probe;
    }
    if ((rc = shoal__nvlink_store(topo, &probe)) < 0) goto out_probe;
    if ((rc = shoal__nvlink_read(topo, &found)) < 0) goto out_probe;
    if (found) topo->nvlink_source = SHOAL__NVLINK_NVML;
out_probe:
    shoal__nvlink_probe_fini(&probe);
    return rc;
}

/* A live machine where hwloc found no PCI device: it cannot see the PCI
 * bus (the linux component's sysfs walk and the hwloc_pci plugin both
 * absent, disabled or blind), so no GPU, NIC or switch has a place. If NVML sees GPUs, the
 * model takes them from NVML, with the PCIe class NVML gives for each pair,
 * and says so in the warning; nothing is made up as a PCIe path. */
static int shoal__no_pci(shoal_topo_t topo)
{
    char text[512];
    int found = 0, rc, n;

    if ((rc = shoal__nvml_gpus(topo, &found)) < 0) return rc;
    if (!found) return SHOAL_SUCCESS; /* no GPU here either: a CPU-only machine needs no PCI tree */
    topo->pci_missing = 1;
    n = snprintf(text, sizeof(text),
                 "hwloc found no PCI device on this machine while NVML sees %d GPU%s: hwloc cannot see the PCI bus "
                 "here (its linux component reads /sys/bus/pci, its hwloc_pci plugin uses libpciaccess: make /sys "
                 "visible, install libhwloc-plugins or point HWLOC_PLUGINS_PATH at hwloc_pci.so, and keep pci out "
                 "of HWLOC_COMPONENTS). The GPUs and the PCIe class of each pair come from NVML; GPU locality (NUMA "
                 "node, CPUs, nearest NIC) is unknown",
                 topo->n_gpus, topo->n_gpus == 1 ? "" : "s");
    if (topo->pcie_unknown > 0 && n > 0 && (size_t)n < sizeof(text))
        snprintf(text + n, sizeof(text) - (size_t)n, "; NVML gave no class for %d pair%s, taken as SYS",
                 topo->pcie_unknown, topo->pcie_unknown == 1 ? "" : "s");
    if (!(topo->warning = strdup(text)))
        return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
    return SHOAL_SUCCESS;
}

static int shoal__topo_build(shoal_topo_t topo)
{
    int rc;

    topo->n_packages = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PACKAGE);
    topo->n_numa = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
    topo->n_cores = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_CORE);
    if ((rc = shoal__gpus_find(topo)) < 0) return rc;
    if (topo->live && hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PCI_DEVICE) == 0 && (rc = shoal__no_pci(topo)) < 0)
        return rc;
    if ((rc = shoal__nics_find(topo)) < 0) return rc;
    shoal__gpus_nearest_nic(topo);
    if ((rc = shoal__nvlinks_find(topo)) < 0) return rc;
    shoal__topo_paths_fill(topo);
    return SHOAL_SUCCESS;
}

/* ---------------------------------------------------------------- load / destroy */

static int shoal__hwloc_load(shoal_topo_t topo, const char *xml_path)
{
    int rc;

    if (hwloc_topology_init(&topo->hw) < 0) {
        topo->hw = NULL;
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_topology_init failed: %s",
                                 strerror(errno));
    }
    if (xml_path) {
        char *xml;
        size_t len;
        /* shoal reads the file: hwloc gets a form both its parsers read alike. */
        if ((rc = shoal__topo_xml_read(xml_path, &xml, &len)) < 0) return rc;
        /* Keep everything the file holds, so an export gives it back whole. */
        if (hwloc_topology_set_all_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_ALL) < 0) {
            free(xml);
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: hwloc_topology_set_all_types_filter failed: %s",
                                     strerror(errno));
        }
        /* hwloc parses the buffer here already (its length counts the NUL). */
        rc = hwloc_topology_set_xmlbuffer(topo->hw, xml, (int)len + 1);
        free(xml);
        if (rc < 0)
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: '%s' is not a valid hwloc XML topology "
                                     "(hwloc_topology_set_xmlbuffer: %s)",
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
                                     "shoal_topo_load: '%s' is not a valid hwloc XML topology (hwloc_topology_load: "
                                     "%s)",
                                     xml_path, strerror(errno));
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_topology_load failed: %s",
                                 strerror(errno));
    }
    return SHOAL_SUCCESS;
}

int shoal_topo_live_pci(void)
{
    hwloc_topology_t hw;
    int n, rc;

    if (hwloc_topology_init(&hw) < 0)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_live_pci: hwloc_topology_init failed: %s",
                                 strerror(errno));
    /* Only the PCI phase matters: CPU and memory discovery (the slow part
     * on a big machine) and the OpenCL and display components are skipped,
     * and every PCI device is kept. A component this hwloc does not have is
     * simply not skipped. */
    (void)hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    (void)hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "linux:cpu");
    (void)hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "linux:memory");
    (void)hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");
    (void)hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
    if (hwloc_topology_set_type_filter(hw, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL) < 0 ||
        hwloc_topology_load(hw) < 0) {
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_live_pci: hwloc cannot load this machine: %s",
                               strerror(errno));
    } else {
        n = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PCI_DEVICE);
        rc = n > 0;
    }
    hwloc_topology_destroy(hw);
    return rc;
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
    free(topo->pcie);
    free(topo->warning);
    if (topo->hw) hwloc_topology_destroy(topo->hw);
    free(topo);
}

/* ---------------------------------------------------------------- accessors */

#define SHOAL__TOPO_CHECK(topo, call)                                                                                  \
    do {                                                                                                               \
        if (!(topo)) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "%s: topo is NULL", (call));                      \
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

int shoal_topo_nic_numa(shoal_topo_t topo, int index, int *numa_p)
{
    SHOAL__TOPO_CHECK(topo, "shoal_topo_nic_numa");
    if (!numa_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_nic_numa: numa_p is NULL");
    if (index < 0 || index >= topo->n_nics)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                                 "shoal_topo_nic_numa: NIC %d out of range (the topology has %d)", index, topo->n_nics);
    *numa_p = topo->nics[index].numa;
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
        unsigned d, b, v, f; /* by the bus id: GPUs from NVML have no PCI object */
        if (shoal__topo_busid_parse(topo->gpus[i].bus_id, &d, &b, &v, &f) == SHOAL_SUCCESS && d == domain && b == bus &&
            v == dev && f == func)
            return i;
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
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                                 "shoal_topo_gpu_nvswitch: GPU pair %d-%d out of range (%d GPUs)", a, b, topo->n_gpus);
    return topo->nvswitch[a * topo->n_gpus + b];
}

const char *shoal_topo_warning(shoal_topo_t topo) { return topo && topo->warning ? topo->warning : ""; }

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
        return shoal__topo_error(SHOAL_ERR_UNSUPPORTED, "%s: the topology was loaded from a file, not this machine",
                                 call);
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
    if (!(set = hwloc_bitmap_alloc()))
        return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_cpubind: out of memory");
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
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_gpu_near_binding: GPU %d out of range (%d GPUs)",
                                 gpu, topo->n_gpus);
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
    if (topo->pci_missing)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                 "shoal_topo_export_xml: the GPUs of this model come from NVML "
                                 "(hwloc found no PCI device), and an hwloc XML cannot hold them: install "
                                 "libhwloc-plugins and export again");
    if (hwloc_topology_export_xml(topo->hw, path, 0) < 0)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_export_xml: cannot write '%s': %s", path,
                                 strerror(errno));
    return SHOAL_SUCCESS;
}
