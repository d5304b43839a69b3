/*
 * What the topology files share about PCI devices: whether an hwloc PCI
 * device object is an NVIDIA GPU or an NVSwitch, and its bus id written as
 * "dddd:bb:dd.f" or parsed back from the forms CUDA, NVML and users write.
 * The loader (topo.c), the NVLink matrix (nvlink.c) and the NVML probe
 * (nvml.c) use these; they depend on hwloc only and call no other topology
 * file.
 */
#include <stdio.h>
#include <string.h>

#include "topo_pci.h"

int shoal__topo_is_gpu(hwloc_obj_t obj)
{
    return obj && obj->type == HWLOC_OBJ_PCI_DEVICE && obj->attr->pcidev.vendor_id == SHOAL__PCI_VENDOR_NVIDIA &&
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
    snprintf(buf, 16, "%04x:%02x:%02x.%01x", (unsigned)pci->attr->pcidev.domain, (unsigned)pci->attr->pcidev.bus,
             (unsigned)pci->attr->pcidev.dev, (unsigned)pci->attr->pcidev.func);
}

/* Parse one hex field of at most max_digits digits, up to the first other
 * character; that character, or NULL without a digit. */
static const char *shoal__parse_hex(const char *s, unsigned max_digits, unsigned *v_p)
{
    unsigned v = 0, n = 0;

    while (n < max_digits) {
        char c = s[n];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        v = v * 16 + d;
        n++;
    }
    if (n == 0) return NULL;
    *v_p = v;
    return s + n;
}

int shoal__topo_busid_parse(const char *s, unsigned *domain_p, unsigned *bus_p, unsigned *dev_p, unsigned *func_p)
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
