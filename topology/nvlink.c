/*
 * The NVLink matrix, kept where hwloc keeps it: a distances structure named
 * "NVLinkBandwidth" whose values are bandwidths in MB/s (one direction).
 *
 * Objects of the matrix may be a GPU's PCI device, an OS device below it
 * (hwloc's NVML backend uses its "nvmlN" devices), or an NVSwitch PCI device.
 * A value between two GPUs is a direct link; GPUs with links into NVSwitches
 * reach each other through them. The matrix lists GPU-to-switch links only
 * (the links that join the switches of two baseboards, as on 16-GPU HGX-2
 * and DGX-2 machines, are not in it), so the NVSwitches of one machine are
 * one fabric unless the topology says otherwise: an info
 * SHOAL__NVLINK_FABRIC_INFO on a switch names its fabric, and switches of
 * different names (no info is a name too, the empty one) are separate
 * fabrics unless a switch-to-switch value joins them. Switches NVML reports
 * but hwloc cannot show (hidden_switch, a VM given some GPUs of a board) are
 * taken as one fabric.
 *
 * Link counts: hwloc's NVML backend writes 25000 MB/s for each NVLink of
 * versions 2 to 4 (20000 for version 1), adding up the links between the
 * same two objects. So links = value / 25000, rounded to the nearest, and at
 * least 1 for any value above zero. An H100/H200 pair with 18 links reads
 * 450000; shoal writes the same when it fills the matrix from NVML.
 */
#include <stdlib.h>
#include <string.h>

#include "topo_error.h"
#include "topo_model.h"
#include "topo_nvlink.h"
#include "topo_pci.h"

int shoal__nvlink_probe_init(shoal__nvlink_probe_t *probe, int n_gpus, int max_switches)
{
    memset(probe, 0, sizeof(*probe));
    probe->n_gpus = n_gpus;
    probe->max_switches = max_switches;
    probe->direct = calloc((size_t)n_gpus * (size_t)n_gpus, sizeof(int));
    probe->hidden_switch = calloc((size_t)n_gpus, sizeof(int));
    probe->switches = calloc((size_t)max_switches, sizeof(hwloc_obj_t));
    probe->to_switch = calloc((size_t)n_gpus * (size_t)max_switches, sizeof(int));
    if (!probe->direct || !probe->hidden_switch || !probe->switches || !probe->to_switch) {
        shoal__nvlink_probe_fini(probe);
        return shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory for the NVLink probe");
    }
    return SHOAL_SUCCESS;
}

void shoal__nvlink_probe_fini(shoal__nvlink_probe_t *probe)
{
    free(probe->direct);
    free(probe->hidden_switch);
    free(probe->switches);
    free(probe->to_switch);
    memset(probe, 0, sizeof(*probe));
}

static hwloc_uint64_t shoal__links_to_mbps(int links) { return (hwloc_uint64_t)links * SHOAL__NVLINK_MBPS; }

static int shoal__mbps_to_links(hwloc_uint64_t mbps)
{
    /* Rounded to the nearest link; mbps near 2^64 must not wrap. */
    hwloc_uint64_t links = mbps / SHOAL__NVLINK_MBPS + (mbps % SHOAL__NVLINK_MBPS >= SHOAL__NVLINK_MBPS / 2);

    if (mbps == 0) return 0;
    if (links == 0) return 1;
    return links > 1000 ? 1000 : (int)links; /* no GPU has a thousand links: a unit mix-up, keep it bounded */
}

/* The links between GPUs i and j a probe found that are not through a
 * switch hwloc shows: direct ones, else those through switches hwloc cannot
 * show (a VM given some GPUs of a board; every switch, where hwloc found no
 * PCI device), *hidden_p then 1. */
static int shoal__probe_pair(const shoal__nvlink_probe_t *probe, int i, int j, int *hidden_p)
{
    int ng = probe->n_gpus;
    /* Each side counts its own links; they should agree. */
    int links =
        probe->direct[i * ng + j] > probe->direct[j * ng + i] ? probe->direct[i * ng + j] : probe->direct[j * ng + i];

    *hidden_p = 0;
    if (links == 0 && probe->hidden_switch[i] > 0 && probe->hidden_switch[j] > 0) {
        links = probe->hidden_switch[i] < probe->hidden_switch[j] ? probe->hidden_switch[i] : probe->hidden_switch[j];
        *hidden_p = 1;
    }
    return links;
}

void shoal__nvlink_from_probe(shoal_topo_t topo, const shoal__nvlink_probe_t *probe)
{
    int ng = topo->n_gpus;

    for (int i = 0; i < ng; i++)
        for (int j = 0; j < ng; j++) {
            int hidden, links = i == j ? 0 : shoal__probe_pair(probe, i, j, &hidden);
            topo->nvlinks[i * ng + j] = links;
            topo->nvswitch[i * ng + j] = (unsigned char)(links > 0 && hidden);
        }
}

int shoal__nvlink_store(shoal_topo_t topo, const shoal__nvlink_probe_t *probe)
{
    int ng = topo->n_gpus, n = ng + probe->n_switches, rc = SHOAL_SUCCESS, any = 0;
    hwloc_obj_t *objs = NULL;
    hwloc_uint64_t *values = NULL;
    hwloc_distances_add_handle_t handle;

    if (n < 2) return SHOAL_SUCCESS;
    objs = calloc((size_t)n, sizeof(*objs));
    values = calloc((size_t)n * (size_t)n, sizeof(*values));
    if (!objs || !values) {
        rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory for the NVLink matrix");
        goto out_free;
    }
    for (int i = 0; i < ng; i++) objs[i] = topo->gpus[i].pci;
    for (int s = 0; s < probe->n_switches; s++) objs[ng + s] = probe->switches[s];

    for (int i = 0; i < ng; i++)
        for (int j = 0; j < ng; j++) {
            int links, hidden;
            if (i == j) continue;
            /* Switches hwloc cannot show go in as a direct value: the
             * matrix has no object for them. */
            links = shoal__probe_pair(probe, i, j, &hidden);
            values[i * n + j] = shoal__links_to_mbps(links);
            any |= links > 0;
        }
    for (int i = 0; i < ng; i++)
        for (int s = 0; s < probe->n_switches; s++) {
            int links = probe->to_switch[i * probe->max_switches + s];
            values[i * n + ng + s] = values[(ng + s) * n + i] = shoal__links_to_mbps(links);
            any |= links > 0;
        }
    if (!any) goto out_free;

    handle = hwloc_distances_add_create(topo->hw, SHOAL__NVLINK_MATRIX,
                                        HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH, 0);
    if (!handle) {
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_distances_add_create(%s) failed",
                               SHOAL__NVLINK_MATRIX);
        goto out_free;
    }
    /* On failure hwloc destroys the handle itself. */
    if (hwloc_distances_add_values(topo->hw, handle, (unsigned)n, objs, values, 0) < 0 ||
        hwloc_distances_add_commit(topo->hw, handle, 0) < 0)
        rc = shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: adding the %s matrix (%d objects) to hwloc failed",
                               SHOAL__NVLINK_MATRIX, n);
out_free:
    free(objs);
    free(values);
    return rc;
}

static int shoal__gpu_index(shoal_topo_t topo, hwloc_obj_t pci)
{
    for (int i = 0; i < topo->n_gpus; i++)
        if (topo->gpus[i].pci == pci) return i;
    return -1;
}

/* What a matrix object stands for: a GPU (index >= 0), an NVSwitch
 * (*is_switch_p), or something else (a CPU on POWER: ignored). */
static int shoal__matrix_obj(shoal_topo_t topo, hwloc_obj_t obj, int *gpu_p, int *is_switch_p)
{
    *gpu_p = -1;
    *is_switch_p = 0;
    if (obj->type == HWLOC_OBJ_OS_DEVICE) {
        hwloc_obj_t pci = obj->parent;
        int is_gpu_osdev =
            obj->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU || obj->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC;
        if (!pci || pci->type != HWLOC_OBJ_PCI_DEVICE) {
            if (!is_gpu_osdev) return SHOAL_SUCCESS;
            return shoal__topo_error(SHOAL_ERR_TOPOLOGY,
                                     "shoal_topo_load: %s matrix names GPU '%s', which has no PCI device above it, so "
                                     "its PCI bus id is unknown and it matches no GPU",
                                     SHOAL__NVLINK_MATRIX, obj->name ? obj->name : "?");
        }
        obj = pci;
    }
    if (obj->type != HWLOC_OBJ_PCI_DEVICE) return SHOAL_SUCCESS;
    if (shoal__topo_is_nvswitch(obj)) {
        *is_switch_p = 1;
        return SHOAL_SUCCESS;
    }
    *gpu_p = shoal__gpu_index(topo, obj);
    return SHOAL_SUCCESS;
}

/* The NVSwitches seen in the matrices, each GPU's links into each, and
 * which switches are joined (the same fabric name, or switch-to-switch
 * links): a fabric is a set of joined switches, and two GPUs reach each
 * other through a fabric both have links into. */
typedef struct shoal__fabric {
    hwloc_obj_t *sw;   /* switch objects (PCI devices), distinct */
    const char **name; /* each switch's SHOAL__NVLINK_FABRIC_INFO, "" without one (hwloc's strings) */
    int n_sw, cap_sw;
    int *parent; /* union-find over switches */
    int *links;  /* [gpu * cap_sw + switch]: the GPU's links into the switch */
} shoal__fabric_t;

/* The fabric a switch says it belongs to: the info on the matrix object,
 * else on its PCI device (an OS device of the matrix stands for it). */
static const char *shoal__fabric_name(hwloc_obj_t obj, hwloc_obj_t pci)
{
    const char *name = hwloc_obj_get_info_by_name(obj, SHOAL__NVLINK_FABRIC_INFO);
    if (!name && pci != obj) name = hwloc_obj_get_info_by_name(pci, SHOAL__NVLINK_FABRIC_INFO);
    return name ? name : "";
}

static int shoal__fabric_switch(shoal__fabric_t *f, hwloc_obj_t obj)
{
    hwloc_obj_t pci = obj->type == HWLOC_OBJ_OS_DEVICE && obj->parent ? obj->parent : obj;

    for (int s = 0; s < f->n_sw; s++)
        if (f->sw[s] == pci) {
            /* Another matrix may name it through the other object. */
            if (!f->name[s][0]) f->name[s] = shoal__fabric_name(obj, pci);
            return s;
        }
    f->sw[f->n_sw] = pci; /* cap_sw counts every matrix object: room is there */
    f->name[f->n_sw] = shoal__fabric_name(obj, pci);
    f->parent[f->n_sw] = f->n_sw;
    return f->n_sw++;
}

static int shoal__fabric_root(shoal__fabric_t *f, int s)
{
    while (f->parent[s] != s) s = f->parent[s] = f->parent[f->parent[s]];
    return s;
}

static void shoal__fabric_join(shoal__fabric_t *f, int x, int y)
{
    int rx = shoal__fabric_root(f, x), ry = shoal__fabric_root(f, y);
    if (rx != ry) f->parent[rx] = ry;
}

/* Switches of one name are one fabric: with no name anywhere (what hwloc
 * and shoal's NVML probe write), every switch of the machine. */
static void shoal__fabric_join_names(shoal__fabric_t *f)
{
    for (int s = 1; s < f->n_sw; s++)
        for (int t = 0; t < s; t++)
            if (strcmp(f->name[s], f->name[t]) == 0) {
                shoal__fabric_join(f, s, t);
                break;
            }
}

/* Fold one matrix into topo->nvlinks (direct links) and the fabric. */
static int shoal__nvlink_fold(shoal_topo_t topo, const struct hwloc_distances_s *d, shoal__fabric_t *f)
{
    unsigned n = d->nbobjs;
    int ng = topo->n_gpus, rc = SHOAL_SUCCESS;
    int *gpu = calloc(n, sizeof(int)), *sw = calloc(n, sizeof(int));

    if (!gpu || !sw) {
        rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory reading %s", SHOAL__NVLINK_MATRIX);
        goto out_free;
    }
    for (unsigned k = 0; k < n; k++) {
        int is_switch;
        if ((rc = shoal__matrix_obj(topo, d->objs[k], &gpu[k], &is_switch)) < 0) goto out_free;
        sw[k] = is_switch ? shoal__fabric_switch(f, d->objs[k]) : -1;
    }

    for (unsigned x = 0; x < n; x++)
        for (unsigned y = 0; y < n; y++) {
            hwloc_uint64_t bw =
                d->values[x * n + y] > d->values[y * n + x] ? d->values[x * n + y] : d->values[y * n + x];
            int links = shoal__mbps_to_links(bw);
            if (x == y || links == 0) continue;
            if (gpu[x] >= 0 && gpu[y] >= 0 && gpu[y] != gpu[x]) {
                int *slot = &topo->nvlinks[gpu[x] * ng + gpu[y]];
                if (links > *slot) *slot = links;
            } else if (gpu[x] >= 0 && sw[y] >= 0) {
                int *slot = &f->links[gpu[x] * f->cap_sw + sw[y]];
                if (links > *slot) *slot = links; /* one matrix may list a pair twice: not twice the links */
            } else if (sw[x] >= 0 && sw[y] >= 0 && sw[x] != sw[y]) {
                shoal__fabric_join(f, sw[x], sw[y]);
            }
        }
out_free:
    free(gpu);
    free(sw);
    return rc;
}

/* GPU g's links into fabric root r. */
static int shoal__fabric_links(shoal__fabric_t *f, int g, int r)
{
    int sum = 0;
    for (int s = 0; s < f->n_sw; s++)
        if (shoal__fabric_root(f, s) == r) sum += f->links[g * f->cap_sw + s];
    return sum;
}

int shoal__nvlink_read(shoal_topo_t topo, int *found_p)
{
    struct hwloc_distances_s *dist[8];
    unsigned nr = 8;
    int ng = topo->n_gpus, rc = SHOAL_SUCCESS, cap = 0;
    shoal__fabric_t f = {0};

    *found_p = 0;
    if (hwloc_distances_get_by_name(topo->hw, SHOAL__NVLINK_MATRIX, &nr, dist, 0) < 0)
        return shoal__topo_error(SHOAL_ERR_TOPOLOGY, "shoal_topo_load: hwloc_distances_get_by_name(%s) failed",
                                 SHOAL__NVLINK_MATRIX);
    if (nr > 8) nr = 8; /* hwloc filled only what fits; more than one is unusual already */
    if (nr == 0) return SHOAL_SUCCESS;
    *found_p = 1;

    memset(topo->nvlinks, 0, (size_t)ng * (size_t)ng * sizeof(*topo->nvlinks));
    memset(topo->nvswitch, 0, (size_t)ng * (size_t)ng * sizeof(*topo->nvswitch));
    for (unsigned i = 0; i < nr; i++) cap += (int)dist[i]->nbobjs;
    f.cap_sw = cap > 0 ? cap : 1;
    f.sw = calloc((size_t)f.cap_sw, sizeof(*f.sw));
    f.name = calloc((size_t)f.cap_sw, sizeof(*f.name));
    f.parent = calloc((size_t)f.cap_sw, sizeof(int));
    f.links = calloc((size_t)(ng ? ng : 1) * (size_t)f.cap_sw, sizeof(int));
    if (!f.sw || !f.name || !f.parent || !f.links) {
        rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory reading %s", SHOAL__NVLINK_MATRIX);
        goto out_release;
    }
    for (unsigned i = 0; i < nr; i++)
        if ((rc = shoal__nvlink_fold(topo, dist[i], &f)) < 0) goto out_release;
    shoal__fabric_join_names(&f);

    /* Through each fabric two GPUs move data at the rate of the slower
     * one's links into it. With one fabric (no names), that is the smaller
     * of the two GPUs' link totals into the machine's switches: 5+4+4+5 =
     * 18 on an HGX board of 8 GPUs and 4 switches; 6 on a 16-GPU machine
     * of two baseboards, each GPU with one link into each of its own
     * baseboard's 6 switches. Fabrics named apart add up; GPUs that share
     * none are not joined by NVLink. */
    for (int a = 0; a < ng; a++)
        for (int b = 0; b < ng; b++) {
            int total = 0;
            if (a == b || topo->nvlinks[a * ng + b] > 0) continue;
            for (int s = 0; s < f.n_sw; s++) {
                int la, lb;
                if (shoal__fabric_root(&f, s) != s) continue; /* each fabric once, at its root */
                la = shoal__fabric_links(&f, a, s);
                lb = shoal__fabric_links(&f, b, s);
                total += la < lb ? la : lb;
            }
            if (total == 0) continue;
            topo->nvlinks[a * ng + b] = total > 1000 ? 1000 : total;
            topo->nvswitch[a * ng + b] = 1;
        }
out_release:
    free(f.sw);
    free(f.name);
    free(f.parent);
    free(f.links);
    for (unsigned i = 0; i < nr; i++) hwloc_distances_release(topo->hw, dist[i]);
    return rc;
}
