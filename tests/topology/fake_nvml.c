/*
 * A stand-in for libnvidia-ml.so.1 (loaded through SHOAL_NVML_LIBRARY) that
 * describes a fixed machine of four GPUs, for tests of the topology code on
 * machines without a GPU. Only the entry points shoal uses exist; their
 * types follow NVML's documented ABI, as topology/nvml.c declares them.
 *
 *   NVML index  PCI bus id     NVLinks
 *   0           0000:41:00.0   2 to an NVSwitch (0000:f0:00.0)
 *   1           0000:07:00.0   4 to 0000:0a:00.0
 *   2           0000:0a:00.0   4 to 0000:07:00.0
 *   3           0000:c1:00.0   2 to the NVSwitch
 *
 * Nearest common ancestors (nvmlGpuTopologyLevel_t): 07-0a one PCIe switch,
 * 07-41 one NUMA node, 07-c1 the system, 0a-41 one host bridge, 41-c1
 * several switches, and 0a-c1 not supported (an error).
 */
#include <stdio.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6

typedef struct fake_pci {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} fake_pci_t;

typedef struct fake_gpu {
    unsigned bus;
    const char *name;
    int links;       /* active NVLinks */
    unsigned remote; /* bus of what they end on */
    int remote_type; /* 0 GPU, 2 switch */
} fake_gpu_t;

#define VISIBLE __attribute__((visibility("default")))

static const fake_gpu_t gpus[4] = {
    {0x41, "Fake GPU C", 2, 0xf0, 2},
    {0x07, "Fake GPU A", 4, 0x0a, 0},
    {0x0a, "Fake GPU B", 4, 0x07, 0},
    {0xc1, "Fake GPU D", 2, 0xf0, 2},
};

static int level_of(unsigned a, unsigned b, int *level)
{
    static const struct {
        unsigned a, b;
        int level; /* -1: not supported */
    } pairs[] = {{0x07, 0x0a, 10}, {0x07, 0x41, 40}, {0x07, 0xc1, 50},
                 {0x0a, 0x41, 30}, {0x41, 0xc1, 20}, {0x0a, 0xc1, -1}};
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if ((pairs[i].a == a && pairs[i].b == b) || (pairs[i].a == b && pairs[i].b == a)) {
            if (pairs[i].level < 0) return NVML_ERROR_NOT_SUPPORTED;
            *level = pairs[i].level;
            return NVML_SUCCESS;
        }
    return NVML_ERROR_INVALID_ARGUMENT;
}

static const fake_gpu_t *gpu_of(const void *dev)
{
    for (int i = 0; i < 4; i++)
        if (dev == (const void *)&gpus[i]) return &gpus[i];
    return NULL;
}

static void fill_pci(fake_pci_t *pci, unsigned bus, unsigned vendor_device)
{
    memset(pci, 0, sizeof(*pci));
    pci->bus = bus;
    pci->pciDeviceId = vendor_device;
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02x:00.0", bus);
    snprintf(pci->busId, sizeof(pci->busId), "00000000:%02x:00.0", bus);
}

VISIBLE int nvmlInit_v2(void) { return NVML_SUCCESS; }
VISIBLE int nvmlShutdown(void) { return NVML_SUCCESS; }

VISIBLE int nvmlDeviceGetCount_v2(unsigned int *count)
{
    *count = 4;
    return NVML_SUCCESS;
}

VISIBLE int nvmlDeviceGetHandleByIndex_v2(unsigned int index, const void **dev)
{
    if (index >= 4) return NVML_ERROR_INVALID_ARGUMENT;
    *dev = &gpus[index];
    return NVML_SUCCESS;
}

VISIBLE int nvmlDeviceGetHandleByPciBusId_v2(const char *id, const void **dev)
{
    unsigned domain, bus, device, func;
    if (sscanf(id, "%x:%x:%x.%x", &domain, &bus, &device, &func) != 4) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < 4; i++)
        if (domain == 0 && gpus[i].bus == bus && device == 0) {
            *dev = &gpus[i];
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

VISIBLE int nvmlDeviceGetPciInfo_v3(const void *dev, fake_pci_t *pci)
{
    const fake_gpu_t *g = gpu_of(dev);
    if (!g) return NVML_ERROR_INVALID_ARGUMENT;
    fill_pci(pci, g->bus, 0x233010deu);
    return NVML_SUCCESS;
}

VISIBLE int nvmlDeviceGetName(const void *dev, char *name, unsigned int length)
{
    const fake_gpu_t *g = gpu_of(dev);
    if (!g) return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(name, length, "%s", g->name);
    return NVML_SUCCESS;
}

VISIBLE int nvmlDeviceGetTopologyCommonAncestor(const void *a, const void *b, int *level)
{
    const fake_gpu_t *ga = gpu_of(a), *gb = gpu_of(b);
    if (!ga || !gb) return NVML_ERROR_INVALID_ARGUMENT;
    return level_of(ga->bus, gb->bus, level);
}

VISIBLE int nvmlDeviceGetNvLinkState(const void *dev, unsigned int link, int *active)
{
    const fake_gpu_t *g = gpu_of(dev);
    if (!g || link >= 18) return NVML_ERROR_INVALID_ARGUMENT;
    *active = (int)link < g->links;
    return NVML_SUCCESS;
}

VISIBLE int nvmlDeviceGetNvLinkRemotePciInfo_v2(const void *dev, unsigned int link, fake_pci_t *pci)
{
    const fake_gpu_t *g = gpu_of(dev);
    if (!g || (int)link >= g->links) return NVML_ERROR_INVALID_ARGUMENT;
    fill_pci(pci, g->remote, g->remote_type == 2 ? 0x22a310deu : 0x233010deu);
    return NVML_SUCCESS;
}

VISIBLE int nvmlDeviceGetNvLinkRemoteDeviceType(const void *dev, unsigned int link, int *type)
{
    const fake_gpu_t *g = gpu_of(dev);
    if (!g || (int)link >= g->links) return NVML_ERROR_INVALID_ARGUMENT;
    *type = g->remote_type;
    return NVML_SUCCESS;
}
