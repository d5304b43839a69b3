/*
 * Path classes between devices, from the PCI tree hwloc builds.
 *
 * hwloc shows a PCIe switch as an upstream-port bridge (PCI to PCI) whose
 * children are downstream-port bridges, one per slot; a root complex is a
 * host bridge (upstream type HOST) with root ports or devices below it; host
 * bridges hang below the CPU-side object (Package, Group, Machine) they are
 * local to. So the lowest common ancestor of two devices says how far data
 * travels between them:
 *
 *   a PCI-to-PCI bridge with at most one bridge below it on each side: one
 *     switch (PIX); deeper: several switches (PXB);
 *   a host bridge: through the root complex (PHB);
 *   a CPU-side object: across host bridges, then NODE when both devices are
 *     local to the same NUMA nodes, else SYS.
 */
#include "topo_model.h"
#include "topo_path.h"

/* Lowest object that is a or an ancestor of a, and b or an ancestor of b.
 * (hwloc_get_common_ancestor_obj compares depths, which I/O objects lack.) */
static hwloc_obj_t shoal__common_ancestor(hwloc_obj_t a, hwloc_obj_t b)
{
    for (hwloc_obj_t y = b; y; y = y->parent)
        for (hwloc_obj_t x = a; x; x = x->parent)
            if (x == y) return y;
    return NULL;
}

/* Bridges strictly between obj and its ancestor top. */
static int shoal__bridges_below(hwloc_obj_t obj, hwloc_obj_t top)
{
    int n = 0;

    for (hwloc_obj_t x = obj; x && x != top; x = x->parent) n += x->type == HWLOC_OBJ_BRIDGE;
    return n;
}

static hwloc_obj_t shoal__cpu_side(hwloc_obj_t obj)
{
    while (obj && !obj->cpuset) obj = obj->parent;
    return obj;
}

shoal_path_t shoal__topo_pci_path(hwloc_obj_t a, hwloc_obj_t b)
{
    hwloc_obj_t top, na, nb;

    if (a == b) return SHOAL_PATH_LOC;
    top = shoal__common_ancestor(a, b);
    if (!top) return SHOAL_PATH_SYS; /* not one tree: cannot happen within a topology */

    if (top->type == HWLOC_OBJ_BRIDGE) {
        if (top->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) return SHOAL_PATH_PHB;
        if (shoal__bridges_below(a, top) <= 1 && shoal__bridges_below(b, top) <= 1) return SHOAL_PATH_PIX;
        return SHOAL_PATH_PXB;
    }
    /* One device below the other (an OS device below its PCI device). */
    if (hwloc_obj_type_is_io(top->type)) return SHOAL_PATH_PIX;

    na = shoal__cpu_side(a);
    nb = shoal__cpu_side(b);
    /* One NUMA node both: NODE. Host bridges attached to a multi-node
     * machine as a whole (the kernel gave no NUMA node for them) may be on
     * different sockets: SYS. */
    if (na && nb && na->nodeset && nb->nodeset && hwloc_bitmap_isequal(na->nodeset, nb->nodeset) &&
        hwloc_bitmap_weight(na->nodeset) == 1)
        return SHOAL_PATH_NODE;
    return SHOAL_PATH_SYS;
}

void shoal__topo_paths_fill(shoal_topo_t topo)
{
    int n = topo->n_gpus;

    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            shoal_path_t p;
            if (a == b)
                p = SHOAL_PATH_LOC;
            else if (topo->nvlinks[a * n + b] > 0)
                p = SHOAL_PATH_NVL;
            else if (topo->pci_missing)
                p = (shoal_path_t)topo->pcie[a * n + b]; /* NVML's class */
            else
                p = shoal__topo_pci_path(topo->gpus[a].pci, topo->gpus[b].pci);
            topo->paths[a * n + b] = (unsigned char)p;
        }
}
