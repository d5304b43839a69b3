/*
 * The topology model on recorded machines: counts, GPUs in bus order, NUMA
 * locality, nearest NICs, the path and NVLink count of every GPU pair; the
 * NVLink matrix written the way the NVML probe writes it (direct links,
 * switches hwloc cannot see, switches it can) and read back, also after an
 * XML export; NVSwitch fabrics (one per machine unless named apart);
 * SHOAL_TOPO_FILE; loading errors.
 *
 * Fixtures: the XML files of tests/fixtures/topology (made by
 * tests/topology/make_fixtures.py).
 * The values below are the machines' own, written by hand, not read from an
 * expected-output file: they are what the files must give.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "shoal_topo.h"
#include "topo_internal.h"

enum {
    LOC = SHOAL_PATH_LOC,
    NVL = SHOAL_PATH_NVL,
    PIX = SHOAL_PATH_PIX,
    PXB = SHOAL_PATH_PXB,
    PHB = SHOAL_PATH_PHB,
    NOD = SHOAL_PATH_NODE,
    SYS = SHOAL_PATH_SYS
};

static char fixture_dir[4096];

static const char *fixture(const char *name)
{
    static char path[4096 + 256];
    snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
    return path;
}

static shoal_topo_t load(const char *name)
{
    shoal_topo_t topo = NULL;
    int rc = shoal_topo_load(fixture(name), &topo);
    CHECK_MSG(rc == SHOAL_SUCCESS && topo, "loading %s: status %d: %s", name, rc, shoal_topo_last_error());
    return topo;
}

static void expect_counts(shoal_topo_t t, int packages, int numa, int cores, int gpus, int nics)
{
    CHECK_EQ_INT(shoal_topo_n_packages(t), packages);
    CHECK_EQ_INT(shoal_topo_n_numa(t), numa);
    CHECK_EQ_INT(shoal_topo_n_cores(t), cores);
    CHECK_EQ_INT(shoal_topo_n_gpus(t), gpus);
    CHECK_EQ_INT(shoal_topo_n_nics(t), nics);
}

static void expect_gpu(shoal_topo_t t, int i, const char *bus, const char *name, int numa, const char *cpuset, int nic)
{
    shoal_topo_gpu_t g;
    memset(&g, 0xff, sizeof(g)); /* every field must be written */
    CHECK_EQ_INT(shoal_topo_gpu(t, i, &g), SHOAL_SUCCESS);
    CHECK_EQ_INT(g.index, i);
    CHECK_EQ_STR(g.pci_bus_id, bus);
    CHECK_EQ_STR(g.name, name);
    CHECK_EQ_INT(g.numa_node, numa);
    CHECK_EQ_STR(g.cpuset, cpuset);
    CHECK_EQ_INT(g.nic, nic);
}

static void expect_nic(shoal_topo_t t, int i, const char *bus, const char *name)
{
    shoal_topo_nic_t n;
    CHECK_EQ_INT(shoal_topo_nic(t, i, &n), SHOAL_SUCCESS);
    CHECK_EQ_INT(n.index, i);
    CHECK_EQ_STR(n.pci_bus_id, bus);
    CHECK_EQ_STR(n.name, name);
}

/* Path and link count of a-b, both ways round. */
static void expect_pair(shoal_topo_t t, int a, int b, int path, int links, int nvswitch)
{
    for (int k = 0; k < 2; k++) {
        int x = k ? b : a, y = k ? a : b, got_links = -1;
        shoal_path_t got = SHOAL_PATH_COUNT;
        CHECK_EQ_INT(shoal_topo_gpu_path(t, x, y, &got, &got_links), SHOAL_SUCCESS);
        CHECK_MSG((int)got == path && got_links == links, "GPUs %d-%d: got %s with %d NVLinks, want %s with %d", x, y,
                  shoal_path_name(got), got_links, shoal_path_name((shoal_path_t)path), links);
        CHECK_EQ_INT(shoal_topo_gpu_nvswitch(t, x, y), nvswitch);
    }
}

/* The transport between one PE on GPU a and one on GPU b of one node, when
 * cuda_ipc may use NVLink only: cuda_ipc exactly when the pair is NVL. */
static void expect_nvl_transport(shoal_topo_t t, int a, int b, shoal_transport_id_t want, const char *needle)
{
    shoal_topo_policy_t pol = {.p2p_level = SHOAL_PATH_NVL, .disabled = 0};
    shoal_topo_place_t pa = {.pe = 0, .node = 0, .gpu = a}, pb = {.pe = 1, .node = 0, .gpu = b};
    shoal_transport_id_t tp = SHOAL_TRANSPORT_COUNT;
    char why[256] = "";

    CHECK_MSG(shoal_topo_choose(t, &pol, &pa, &pb, &tp, why, sizeof(why)) == SHOAL_SUCCESS, "GPUs %d-%d: %s", a, b,
              shoal_topo_last_error());
    CHECK_MSG(tp == want, "GPUs %d-%d: %s, want %s (%s)", a, b, shoal_transport_name(tp), shoal_transport_name(want),
              why);
    CHECK_CONTAINS(why, needle);
}

static const char *tmp_path(void);
static const char *variant_of(const char *name, const char *from, const char *to);
static const char *variant_every(const char *name, const char *from, const char *to);
static void expect_load_error(const char *path, int status, const char *needle1, const char *needle2);

/* The machine the GPU tests run on, with the matrix NVML gives there. */
static void test_h200(void)
{
    shoal_topo_t t = load("h200x2-nv18.xml");

    expect_counts(t, 1, 1, 32, 2, 1);
    expect_gpu(t, 0, "0000:00:06.0", "", 0, "0-31", 0);
    expect_gpu(t, 1, "0000:00:07.0", "", 0, "0-31", 0);
    expect_nic(t, 0, "0000:00:03.0", "eth0");
    expect_pair(t, 0, 0, LOC, 0, 0);
    expect_pair(t, 0, 1, NVL, 18, 0);
    CHECK_EQ_STR(shoal_topo_nvlink_source(t), "hwloc");
    shoal_topo_destroy(t);

    /* What shoal-topo --export wrote on that machine after asking NVML
     * (links there end on NVSwitches the VM cannot see): the same answers. */
    t = load("h200x2-nvml-export.xml");
    expect_counts(t, 1, 1, 32, 2, 1);
    expect_gpu(t, 0, "0000:00:06.0", "", 0, "0-31", 0);
    expect_gpu(t, 1, "0000:00:07.0", "", 0, "0-31", 0);
    expect_pair(t, 0, 1, NVL, 18, 0);
    CHECK_EQ_STR(shoal_topo_nvlink_source(t), "hwloc");
    shoal_topo_destroy(t);

    /* Without the matrix: both GPUs hang off one host bridge. */
    t = load("h200x2-pcie.xml");
    expect_counts(t, 1, 1, 32, 2, 1);
    expect_pair(t, 0, 1, PHB, 0, 0);
    CHECK_EQ_STR(shoal_topo_nvlink_source(t), "none");
    shoal_topo_destroy(t);
}

static void test_nvswitch(void)
{
    shoal_topo_t t = load("nvswitch-8gpu.xml");
    static const char *const buses[8] = {"0000:13:00.0", "0000:14:00.0", "0000:33:00.0", "0000:34:00.0",
                                         "0000:53:00.0", "0000:54:00.0", "0000:73:00.0", "0000:74:00.0"};

    expect_counts(t, 2, 2, 32, 8, 4);
    for (int g = 0; g < 8; g++)
        expect_gpu(t, g, buses[g], "GH100 [H100 SXM5 80GB]", g / 4, g < 4 ? "0-15" : "16-31", g / 2);
    expect_nic(t, 0, "0000:15:00.0", "ibp21s0,mlx5_0");
    expect_nic(t, 3, "0000:75:00.0", "ibp117s0,mlx5_3");
    /* 5+4+4+5 links into the four switches: 18 between any two GPUs. */
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) expect_pair(t, a, b, NVL, 18, 1);
    shoal_topo_destroy(t);

    /* Two fabrics in one box (GPUs 0-3 on switches 0-1, 4-7 on 2-3, 9 links
     * into each), the switches named apart (ShoalNVLinkFabric "0" and "1"):
     * NVLink within a fabric only; across, the PCIe path. */
    t = load("nvswitch-islands-8gpu.xml");
    expect_counts(t, 2, 2, 32, 8, 0);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) {
            if (a / 4 == b / 4)
                expect_pair(t, a, b, NVL, 18, 1);
            else
                expect_pair(t, a, b, PHB, 0, 0);
        }
    expect_nvl_transport(t, 0, 3, SHOAL_TRANSPORT_CUDA_IPC, "18 NVLinks through NVSwitches");
    expect_nvl_transport(t, 3, 4, SHOAL_TRANSPORT_STAGED, "(PHB), beyond SHOAL_P2P_LEVEL=NVL");
    /* The names travel with an export. */
    {
        shoal_topo_t r = NULL;
        CHECK_EQ_INT(shoal_topo_export_xml(t, tmp_path()), SHOAL_SUCCESS);
        CHECK_EQ_INT(shoal_topo_load(tmp_path(), &r), SHOAL_SUCCESS);
        expect_pair(r, 0, 3, NVL, 18, 1);
        expect_pair(r, 3, 4, PHB, 0, 0);
        shoal_topo_destroy(r);
    }
    shoal_topo_destroy(t);

    /* The same box without the names: one fabric, every GPU 18 links into
     * it, so NV18 everywhere. */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant_every("nvswitch-islands-8gpu.xml", "<info name=\"ShoalNVLinkFabric\"",
                                               "<info name=\"Unrelated\""),
                                 &t),
                 SHOAL_SUCCESS);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) expect_pair(t, a, b, NVL, 18, 1);
    shoal_topo_destroy(t);

    /* Switch 2 named into fabric "0": fabric "0" is switches 0-2 (GPUs 0-3:
     * 18 links, GPUs 4-7: 9), fabric "1" switch 3 (GPUs 4-7: 9). GPUs 0-3
     * reach 4-7 through "0" only, at the smaller side's 9; GPUs 4-7 reach
     * each other through both, 9 + 9. */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant_of("nvswitch-islands-8gpu.xml", "<info name=\"ShoalNVLinkFabric\" value=\"1\"",
                                            "<info name=\"ShoalNVLinkFabric\" value=\"0\""),
                                 &t),
                 SHOAL_SUCCESS);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) expect_pair(t, a, b, NVL, a < 4 && b >= 4 ? 9 : 18, 1);
    shoal_topo_destroy(t);
}

/* 16 GPUs on two baseboards (HGX-2, DGX-2): each GPU has one link into each
 * of its own board's 6 NVSwitches; the links joining the two boards'
 * switches are not in the matrix. The switches are one fabric: every pair
 * NV6, board to board too. */
static void test_nvswitch_2board(void)
{
    shoal_topo_t t = load("nvswitch-2board-16gpu.xml");
    static const char *const buses[16] = {"0000:14:00.0", "0000:15:00.0", "0000:1c:00.0", "0000:1d:00.0",
                                          "0000:34:00.0", "0000:35:00.0", "0000:3c:00.0", "0000:3d:00.0",
                                          "0000:94:00.0", "0000:95:00.0", "0000:9c:00.0", "0000:9d:00.0",
                                          "0000:b4:00.0", "0000:b5:00.0", "0000:bc:00.0", "0000:bd:00.0"};

    expect_counts(t, 2, 2, 48, 16, 8);
    for (int g = 0; g < 16; g++)
        expect_gpu(t, g, buses[g], "GV100GL [Tesla V100 SXM3 32GB]", g / 8, g < 8 ? "0-23" : "24-47", g / 2);
    expect_nic(t, 0, "0000:16:00.0", "ibp22s0,mlx5_0");
    expect_nic(t, 7, "0000:be:00.0", "ibp190s0,mlx5_7");
    CHECK_EQ_STR(shoal_topo_nvlink_source(t), "hwloc");
    for (int a = 0; a < 16; a++)
        for (int b = a + 1; b < 16; b++) {
            char needle[64];
            expect_pair(t, a, b, NVL, 6, 1);
            snprintf(needle, sizeof(needle), "GPUs %d-%d joined by 6 NVLinks through NVSwitches (NVL)", a, b);
            expect_nvl_transport(t, a, b, SHOAL_TRANSPORT_CUDA_IPC, needle);
        }
    shoal_topo_destroy(t);

    /* Named apart per board, the boards are two fabrics: NVLink within a
     * board only, and across the sockets' PCIe (SYS). */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant_every("nvswitch-2board-16gpu.xml",
                                               "<info name=\"PCIDevice\" value=\"GV100 [NVSwitch]\"/>", NULL),
                                 &t),
                 SHOAL_SUCCESS);
    for (int a = 0; a < 16; a++)
        for (int b = a + 1; b < 16; b++) {
            if (a / 8 == b / 8)
                expect_pair(t, a, b, NVL, 6, 1);
            else
                expect_pair(t, a, b, SYS, 0, 0);
        }
    expect_nvl_transport(t, 7, 8, SHOAL_TRANSPORT_STAGED, "(SYS), beyond SHOAL_P2P_LEVEL=NVL");
    shoal_topo_destroy(t);
}

/* The answers for pcie-8gpu.xml, whose first GPU's name is gpu0_name. */
static void expect_pcie_8gpu(shoal_topo_t t, const char *gpu0_name)
{
    static const int want[8][8] = {
        {LOC, PIX, NOD, NOD, SYS, SYS, SYS, SYS}, {PIX, LOC, NOD, NOD, SYS, SYS, SYS, SYS},
        {NOD, NOD, LOC, PIX, SYS, SYS, SYS, SYS}, {NOD, NOD, PIX, LOC, SYS, SYS, SYS, SYS},
        {SYS, SYS, SYS, SYS, LOC, PIX, PXB, PXB}, {SYS, SYS, SYS, SYS, PIX, LOC, PXB, PXB},
        {SYS, SYS, SYS, SYS, PXB, PXB, LOC, PIX}, {SYS, SYS, SYS, SYS, PXB, PXB, PIX, LOC},
    };
    static const char *const buses[8] = {"0000:03:00.0", "0000:04:00.0", "0000:23:00.0", "0000:24:00.0",
                                         "0000:85:00.0", "0000:86:00.0", "0000:89:00.0", "0000:8a:00.0"};

    expect_counts(t, 2, 2, 32, 8, 2);
    for (int g = 0; g < 8; g++)
        expect_gpu(t, g, buses[g], g ? "AD102GL [L40S]" : gpu0_name, g / 4, g < 4 ? "0-15" : "16-31", g / 4);
    expect_nic(t, 0, "0000:05:00.0", "ens5f0");
    expect_nic(t, 1, "0000:8c:00.0", "ens140f0");
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) expect_pair(t, a, b, want[a][b], 0, 0);
    CHECK_EQ_STR(shoal_topo_nvlink_source(t), "none");
}

static void test_pcie(void)
{
    shoal_topo_t t = load("pcie-8gpu.xml");

    expect_pcie_8gpu(t, "AD102GL [L40S]");
    shoal_topo_destroy(t);
}

/* XML that hwloc's two parsers (libxml2, and its minimal one under
 * HWLOC_LIBXML=0; tests/TESTS runs this test under both) would read
 * differently: shoal reads it the same way under both, as libxml2 would,
 * or refuses it under both, naming the byte. */
static void test_xml_forms(void)
{
    static const char pcidev[] = "<info name=\"PCIDevice\" value=\"AD102GL [L40S]\"/>";
    static const char header[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n";
    static const struct {
        const char *from, *to, *gpu0_name;
    } read_alike[] = {
        /* quoting, spacing and references as XML allows them */
        {pcidev, "<info name = 'PCIDevice'\n\tvalue=\"A&#68;102GL&#x20;[L40S&#93;&apos;&lt;&amp;&quot;&gt;\"  />",
         "AD102GL [L40S]'<&\">"},
        /* white space inside a value reads as spaces; a reference keeps it */
        {pcidev, "<info name=\"PCIDevice\" value=\"AD102GL\n[L40S]\t&#10;\"/>", "AD102GL [L40S] \n"},
        /* comments and processing instructions anywhere, no declaration */
        {header, "<!-- <object type=\"Machine\"> --><?pi x?>\n  ", "AD102GL [L40S]"},
        {pcidev,
         "<!-- - --><?pi <info name=\"PCIDevice\" value=\"x\"/> ?>\n"
         "<info name=\"PCIDevice\" value=\"\xc3\xa9\"/>",
         "\xc3\xa9"},
        {"<topology version=\"2.0\">", "<topology  version=\"2.0\" >", "AD102GL [L40S]"},
        /* text hwloc never reads: dropped, as libxml2 skips it */
        {pcidev, "<info name=\"PCIDevice\" value=\"AD102GL [L40S]\">x &#9;</info>", "AD102GL [L40S]"},
    };
    static const struct {
        const char *from, *to, *needle;
    } refused[] = {
        {pcidev, "<Info name=\"PCIDevice\" value=\"x\"/>", "element name 'Info': hwloc's XML names are made of"},
        {pcidev, "<info name=\"PCIDevice\" Value=\"x\"/>", "attribute name 'Value'"},
        {pcidev, "<info name=\"PCIDevice\" value=\"&nbsp;\"/>", "an entity XML does not define"},
        {pcidev, "<info name=\"PCIDevice\" value=\"&#0;\"/>", "an entity XML does not define, or a bad character"},
        {pcidev, "<info name=\"PCIDevice\" value=\"\xff\"/>", "bytes that are not UTF-8"},
        {pcidev, "<info name=\"PCIDevice\" value=\"\x01\"/>", "not UTF-8 or not an XML character"},
        {pcidev, "<info name=\"PCIDevice\" value=\"\xef\xbf\xbe\"/>", "not UTF-8 or not an XML character"},
        {pcidev, "<info name=\"PCIDevice\" value=\"x\"/><userdata length=\"3\">]]&gt;</userdata>",
         "text of <userdata> containing \"]]>\""},
        {pcidev, "<info name=\"PCIDevice\" value=\"x\"/><userdata length=\"2\">a&#13;</userdata>",
         "a carriage return written as a reference"},
        {pcidev, "<info name=\"PCIDevice\" name=\"x\"/>", "attribute 'name' given twice"},
        {pcidev, "<info name=\"PCIDevice\"value=\"x\"/>", "attributes not separated by white space"},
        {pcidev,
         "junk"
         "<info name=\"PCIDevice\" value=\"x\"/>",
         "text beside child elements of <object>"},
        {pcidev,
         "<![CDATA[x]]>"
         "<info name=\"PCIDevice\" value=\"x\"/>",
         NULL},
        {pcidev, "<info name=\"PCIDevice\" value=\"x\"></object>", "</object> closes <info>"},
        {"encoding=\"UTF-8\"", "encoding=\"ISO-8859-1\"", "an encoding other than UTF-8"},
        {"SYSTEM \"hwloc2.dtd\">", "[<!ENTITY x \"y\">]>", "a DOCTYPE with an internal subset"},
        {"<topology version=\"2.0\">", "<topology version=\"2.0\" id=\"x\">", "<topology> with attribute 'id'"},
        {"<topology version=\"2.0\">", "<hwloc version=\"2.0\">", "the root element is <hwloc>"},
        {"</topology>", "</topology><topology/>", "a second root element"},
        {"</topology>", "", "element <topology> is never closed"},
    };
    shoal_topo_t t;

    for (size_t i = 0; i < sizeof(read_alike) / sizeof(read_alike[0]); i++) {
        t = NULL;
        CHECK_MSG(shoal_topo_load(variant_of("pcie-8gpu.xml", read_alike[i].from, read_alike[i].to), &t) ==
                      SHOAL_SUCCESS,
                  "form %zu: %s", i, shoal_topo_last_error());
        expect_pcie_8gpu(t, read_alike[i].gpu0_name);
        shoal_topo_destroy(t);
    }
    /* CRLF line ends throughout. */
    t = NULL;
    CHECK_MSG(shoal_topo_load(variant_every("pcie-8gpu.xml", "\n", "\r\n"), &t) == SHOAL_SUCCESS, "CRLF: %s",
              shoal_topo_last_error());
    expect_pcie_8gpu(t, "AD102GL [L40S]");
    shoal_topo_destroy(t);

    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        expect_load_error(variant_of("pcie-8gpu.xml", refused[i].from, refused[i].to), SHOAL_ERR_TOPOLOGY,
                          "is not a valid hwloc XML topology: at byte",
                          refused[i].needle ? refused[i].needle : "text beside child elements");
}

static void test_nvlink_pairs(void)
{
    shoal_topo_t t = load("nvlink-pairs-4gpu.xml");

    expect_counts(t, 1, 1, 32, 4, 1);
    expect_gpu(t, 0, "0000:03:00.0", "GA100 [A100 SXM4 80GB]", 0, "0-31", 0);
    expect_gpu(t, 3, "0000:14:00.0", "GA100 [A100 SXM4 80GB]", 0, "0-31", 0);
    expect_nic(t, 0, "0000:05:00.0", "ibp5s0,mlx5_0");
    expect_pair(t, 0, 1, NVL, 4, 0);
    expect_pair(t, 2, 3, NVL, 2, 0);
    expect_pair(t, 0, 2, PHB, 0, 0);
    expect_pair(t, 0, 3, PHB, 0, 0);
    expect_pair(t, 1, 2, PHB, 0, 0);
    expect_pair(t, 1, 3, PHB, 0, 0);
    shoal_topo_destroy(t);
}

static void test_cpu_only(void)
{
    shoal_topo_t t = load("cpu-2socket.xml");
    shoal_topo_gpu_t g;
    shoal_path_t p;

    expect_counts(t, 2, 2, 32, 0, 2);
    expect_nic(t, 0, "0000:01:00.0", "eno1");
    expect_nic(t, 1, "0000:81:00.0", "ib0,mlx5_0");
    /* Each NIC's NUMA node: that of the socket its host bridge hangs off. */
    for (int i = 0; i < 2; i++) {
        int numa = -2;
        CHECK_EQ_INT(shoal_topo_nic_numa(t, i, &numa), SHOAL_SUCCESS);
        CHECK_EQ_INT(numa, i);
    }
    {
        int numa = 7;
        CHECK_EQ_INT(shoal_topo_nic_numa(t, 2, &numa), SHOAL_ERR_INVALID_ARG);
        CHECK_CONTAINS(shoal_topo_last_error(), "NIC 2 out of range");
        CHECK_EQ_INT(numa, 7);
        CHECK_EQ_INT(shoal_topo_nic_numa(t, 0, NULL), SHOAL_ERR_INVALID_ARG);
    }
    CHECK_EQ_INT(shoal_topo_gpu(t, 0, &g), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_topo_last_error(), "GPU 0 out of range");
    CHECK_EQ_INT(shoal_topo_gpu_path(t, 0, 0, &p, NULL), SHOAL_ERR_INVALID_ARG);
    shoal_topo_destroy(t);
}

/* SHOAL_TOPO_FILE replaces the live machine when no path is given. */
static void test_env_file(void)
{
    shoal_topo_t t = NULL;

    CHECK_EQ_INT(setenv("SHOAL_TOPO_FILE", fixture("nvlink-pairs-4gpu.xml"), 1), 0);
    CHECK_EQ_INT(shoal_topo_load(NULL, &t), SHOAL_SUCCESS);
    CHECK_EQ_INT(shoal_topo_n_gpus(t), 4);
    expect_pair(t, 0, 1, NVL, 4, 0);
    shoal_topo_destroy(t);
    /* An explicit path wins over the variable. */
    CHECK_EQ_INT(shoal_topo_load(fixture("h200x2-nv18.xml"), &t), SHOAL_SUCCESS);
    CHECK_EQ_INT(shoal_topo_n_gpus(t), 2);
    shoal_topo_destroy(t);
    CHECK_EQ_INT(unsetenv("SHOAL_TOPO_FILE"), 0);
}

/* The machine this runs on: whatever it is, it loads, and the binding
 * queries work there (and only there). */
static void test_live(void)
{
    shoal_topo_t t = NULL, x = load("h200x2-nv18.xml");
    char bind[256] = "";

    CHECK_MSG(shoal_topo_load(NULL, &t) == SHOAL_SUCCESS, "live machine: %s", shoal_topo_last_error());
    CHECK(shoal_topo_n_packages(t) >= 1);
    CHECK(shoal_topo_n_cores(t) >= 1);
    CHECK(shoal_topo_n_gpus(t) >= 0);
    CHECK_EQ_INT(shoal_topo_cpubind(t, bind, sizeof(bind)), SHOAL_SUCCESS);
    CHECK(bind[0] >= '0' && bind[0] <= '9');
    for (int g = 0; g < shoal_topo_n_gpus(t); g++) {
        int near = shoal_topo_gpu_near_binding(t, g);
        CHECK(near == 0 || near == 1);
    }
    check_note("live machine: %d GPUs, NVLink from %s, bound to CPUs %s", shoal_topo_n_gpus(t),
               shoal_topo_nvlink_source(t), bind);
    shoal_topo_destroy(t);

    CHECK_EQ_INT(shoal_topo_cpubind(x, bind, sizeof(bind)), SHOAL_ERR_UNSUPPORTED);
    CHECK_CONTAINS(shoal_topo_last_error(), "loaded from a file");
    CHECK_EQ_INT(shoal_topo_gpu_near_binding(x, 0), SHOAL_ERR_UNSUPPORTED);
    shoal_topo_destroy(x);
}

/* ---------------------------------------------------------------- the NVLink matrix */

static char tmp_xml[64];

static void tmp_cleanup(void)
{
    if (tmp_xml[0]) unlink(tmp_xml);
}

static const char *tmp_path(void)
{
    if (!tmp_xml[0]) {
        int fd;
        strcpy(tmp_xml, "/tmp/shoal-topo-XXXXXX.xml");
        fd = mkstemps(tmp_xml, 4);
        CHECK(fd >= 0);
        close(fd);
        atexit(tmp_cleanup);
    }
    return tmp_xml;
}

/* Store a probe, read it back, classify again: what shoal_topo_load does
 * after asking NVML. */
static void store_and_read(shoal_topo_t t, const shoal__nvlink_probe_t *probe)
{
    int found = 0;
    CHECK_EQ_INT(shoal__nvlink_store(t, probe), SHOAL_SUCCESS);
    CHECK_EQ_INT(shoal__nvlink_read(t, &found), SHOAL_SUCCESS);
    CHECK_EQ_INT(found, 1);
    shoal__topo_paths_fill(t);
}

/* The file holds the matrix: reloading gives the same pairs. */
static shoal_topo_t export_reload(shoal_topo_t t)
{
    shoal_topo_t r = NULL;
    char line[4096];
    int seen = 0;
    FILE *f;

    CHECK_EQ_INT(shoal_topo_export_xml(t, tmp_path()), SHOAL_SUCCESS);
    f = fopen(tmp_path(), "r");
    CHECK(f != NULL);
    while (fgets(line, sizeof(line), f)) seen |= strstr(line, "name=\"NVLinkBandwidth\"") != NULL;
    fclose(f);
    CHECK_MSG(seen, "exported XML %s has no NVLinkBandwidth matrix", tmp_path());
    CHECK_EQ_INT(shoal_topo_load(tmp_path(), &r), SHOAL_SUCCESS);
    CHECK_EQ_STR(shoal_topo_nvlink_source(r), "hwloc");
    return r;
}

static void test_store_direct(void)
{
    shoal_topo_t t = load("h200x2-pcie.xml"), r;
    shoal__nvlink_probe_t probe;

    CHECK_EQ_INT(shoal__nvlink_probe_init(&probe, 2, 36), SHOAL_SUCCESS);
    probe.direct[0 * 2 + 1] = 18;
    probe.direct[1 * 2 + 0] = 18;
    store_and_read(t, &probe);
    expect_pair(t, 0, 1, NVL, 18, 0);
    r = export_reload(t);
    expect_pair(r, 0, 1, NVL, 18, 0);
    shoal_topo_destroy(r);
    shoal__nvlink_probe_fini(&probe);
    shoal_topo_destroy(t);
}

/* A VM shown two GPUs of an HGX board sees their links end on switches it
 * cannot see: the pair gets the smaller side's count. */
static void test_store_hidden_switch(void)
{
    shoal_topo_t t = load("h200x2-pcie.xml"), r;
    shoal__nvlink_probe_t probe;

    CHECK_EQ_INT(shoal__nvlink_probe_init(&probe, 2, 36), SHOAL_SUCCESS);
    probe.hidden_switch[0] = 18;
    probe.hidden_switch[1] = 16;
    store_and_read(t, &probe);
    expect_pair(t, 0, 1, NVL, 16, 0);
    r = export_reload(t);
    expect_pair(r, 0, 1, NVL, 16, 0);
    shoal_topo_destroy(r);
    shoal__nvlink_probe_fini(&probe);
    shoal_topo_destroy(t);

    /* Only one GPU in the fabric: no NVLink pair, nothing stored. */
    t = load("h200x2-pcie.xml");
    CHECK_EQ_INT(shoal__nvlink_probe_init(&probe, 2, 36), SHOAL_SUCCESS);
    probe.hidden_switch[0] = 18;
    CHECK_EQ_INT(shoal__nvlink_store(t, &probe), SHOAL_SUCCESS);
    {
        int found = 1;
        CHECK_EQ_INT(shoal__nvlink_read(t, &found), SHOAL_SUCCESS);
        CHECK_EQ_INT(found, 0);
    }
    expect_pair(t, 0, 1, PHB, 0, 0);
    shoal__nvlink_probe_fini(&probe);
    shoal_topo_destroy(t);
}

/* Switches hwloc shows become objects of the matrix, as hwloc's own NVML
 * backend writes them. */
static void test_store_switches(void)
{
    static const int per_switch[4] = {5, 4, 4, 5};
    shoal_topo_t t = load("nvswitch-8gpu.xml"), r;
    shoal__nvlink_probe_t probe;
    hwloc_obj_t obj = NULL;
    int found = 1;

    /* Forget the fixture's own matrix first. */
    CHECK_EQ_INT(hwloc_distances_remove(t->hw), 0);
    CHECK_EQ_INT(shoal__nvlink_read(t, &found), SHOAL_SUCCESS);
    CHECK_EQ_INT(found, 0);

    CHECK_EQ_INT(shoal__nvlink_probe_init(&probe, 8, 8 * 18), SHOAL_SUCCESS);
    while ((obj = hwloc_get_next_pcidev(t->hw, obj)) != NULL)
        if (shoal__topo_is_nvswitch(obj)) probe.switches[probe.n_switches++] = obj;
    CHECK_EQ_INT(probe.n_switches, 4);
    for (int g = 0; g < 8; g++)
        for (int s = 0; s < 4; s++) probe.to_switch[g * probe.max_switches + s] = per_switch[s];
    store_and_read(t, &probe);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) expect_pair(t, a, b, NVL, 18, 1);
    r = export_reload(t);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) expect_pair(r, a, b, NVL, 18, 1);
    shoal_topo_destroy(r);
    shoal__nvlink_probe_fini(&probe);
    shoal_topo_destroy(t);
}

/* ---------------------------------------------------------------- errors */

static void expect_load_error(const char *path, int status, const char *needle1, const char *needle2)
{
    static struct shoal_topo sentinel;
    shoal_topo_t t = &sentinel, before = t; /* a failed load must leave *topo_p alone */
    int rc = shoal_topo_load(path, &t);

    CHECK_MSG(rc == status, "loading %s: status %d, want %d (%s)", path ? path : "(null)", rc, status,
              shoal_topo_last_error());
    CHECK_EQ_PTR(t, before);
    CHECK_CONTAINS(shoal_topo_last_error(), needle1);
    if (needle2) CHECK_CONTAINS(shoal_topo_last_error(), needle2);
}

static void test_errors(void)
{
    expect_load_error(fixture("no-such-machine.xml"), SHOAL_ERR_TOPOLOGY, "cannot open topology file",
                      "no-such-machine.xml");
    CHECK_CONTAINS(shoal_topo_last_error(), "No such file");
    expect_load_error(fixture("bad/truncated.xml"), SHOAL_ERR_TOPOLOGY, "is not a valid hwloc XML topology",
                      "truncated.xml");
    expect_load_error(fixture("bad/not-a-topology.xml"), SHOAL_ERR_TOPOLOGY, "is not a valid hwloc XML topology",
                      "not-a-topology.xml");
    expect_load_error(fixture("bad/gpu-no-pci.xml"), SHOAL_ERR_TOPOLOGY, "GPU 'nvml0'", "no PCI device above it");
    /* hwloc 2.9 crashes on this one: refused before hwloc sees it. */
    expect_load_error(fixture("bad/no-complete-cpuset.xml"), SHOAL_ERR_TOPOLOGY, "cpuset or nodeset without",
                      "hwloc would crash loading it");
    expect_load_error(fixture("bad"), SHOAL_ERR_TOPOLOGY, "is not a valid hwloc XML topology", NULL);
    /* The second H200 given the first one's bus id. */
    expect_load_error(variant_of("h200x2-pcie.xml", "pci_busid=\"0000:00:07.0\"", "pci_busid=\"0000:00:06.0\""),
                      SHOAL_ERR_TOPOLOGY, "two GPUs have PCI bus id 0000:00:06.0", "each PCI device once");
    expect_load_error("", SHOAL_ERR_INVALID_ARG, "empty topology file name", NULL);
    CHECK_EQ_INT(shoal_topo_load(fixture("h200x2-nv18.xml"), NULL), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_topo_last_error(), "topo_p is NULL");

    /* SHOAL_TOPO_FILE naming a missing file is an error, not the live machine. */
    CHECK_EQ_INT(setenv("SHOAL_TOPO_FILE", "/nonexistent/machine.xml", 1), 0);
    expect_load_error(NULL, SHOAL_ERR_TOPOLOGY, "/nonexistent/machine.xml", NULL);
    CHECK_EQ_INT(unsetenv("SHOAL_TOPO_FILE"), 0);

    /* NULL handles are errors, not crashes. */
    CHECK_EQ_INT(shoal_topo_n_gpus(NULL), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_n_packages(NULL), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_export_xml(NULL, "/tmp/x.xml"), SHOAL_ERR_INVALID_ARG);
    shoal_topo_destroy(NULL);

    /* Export into a folder that does not exist. */
    {
        shoal_topo_t t = load("h200x2-nv18.xml");
        CHECK_EQ_INT(shoal_topo_export_xml(t, "/nonexistent/dir/out.xml"), SHOAL_ERR_TOPOLOGY);
        CHECK_CONTAINS(shoal_topo_last_error(), "/nonexistent/dir/out.xml");
        shoal_topo_destroy(t);
    }
}

/* A fixture with the first `from` replaced by `to`, in tmp_path(). */
static const char *variant_of(const char *name, const char *from, const char *to)
{
    static char text[1 << 16];
    FILE *f = fopen(fixture(name), "r");
    size_t n;
    char *at;

    CHECK(f != NULL);
    n = fread(text, 1, sizeof(text) - 1, f);
    CHECK(n > 0 && n < sizeof(text) - 1 && !ferror(f));
    fclose(f);
    text[n] = '\0';
    at = strstr(text, from);
    CHECK_MSG(at != NULL, "%s has no '%s'", name, from);
    f = fopen(tmp_path(), "w");
    CHECK(f != NULL);
    CHECK(fwrite(text, 1, (size_t)(at - text), f) == (size_t)(at - text));
    CHECK(fputs(to, f) >= 0);
    CHECK(fputs(at + strlen(from), f) >= 0);
    CHECK_EQ_INT(fclose(f), 0);
    return tmp_path();
}

/* A fixture with every `from` replaced by `to`, in tmp_path(); to NULL: by
 * the fabric name of its board ("0" on the first half of the replacements,
 * "1" on the second: the NVSwitches of nvswitch-2board-16gpu.xml in bus
 * order), after `from` itself. */
static const char *variant_every(const char *name, const char *from, const char *to)
{
    static char text[1 << 17];
    FILE *f = fopen(fixture(name), "r");
    size_t n, len = strlen(from);
    int total = 0, k = 0;
    char *at, *p;

    CHECK(f != NULL);
    n = fread(text, 1, sizeof(text) - 1, f);
    CHECK(n > 0 && n < sizeof(text) - 1 && !ferror(f));
    fclose(f);
    text[n] = '\0';
    for (p = text; (at = strstr(p, from)) != NULL; p = at + len) total++;
    CHECK_MSG(total > 0, "%s has no '%s'", name, from);
    f = fopen(tmp_path(), "w");
    CHECK(f != NULL);
    for (p = text; (at = strstr(p, from)) != NULL; p = at + len, k++) {
        CHECK(fwrite(p, 1, (size_t)(at - p), f) == (size_t)(at - p));
        if (to)
            CHECK(fputs(to, f) >= 0);
        else
            CHECK(fprintf(f, "%s<info name=\"ShoalNVLinkFabric\" value=\"%d\"/>", from, k < total / 2 ? 0 : 1) > 0);
    }
    CHECK(fputs(p, f) >= 0);
    CHECK_EQ_INT(fclose(f), 0);
    return tmp_path();
}

static const char *variant(const char *from, const char *to) { return variant_of("cpu-2socket.xml", from, to); }

/* What shoal refuses before hwloc sees it, in every way XML may spell it:
 * an os_index hwloc would turn into sets of gigabytes (seconds per load),
 * and a cpuset without its complete_cpuset (hwloc crashes). */
static void test_prescan(void)
{
    static const char pu1[] = "type=\"PU\" os_index=\"1\"";
    static const struct {
        const char *to, *needle;
    } refused[] = {
        {"type=\"PU\" os_index=\"2000000000\"", "os_index \"2000000000\" is out of range (0 to 65535"},
        {"type=\"PU\"\n\tos_index = '4294967295'", "os_index \"4294967295\" is out of range"},
        {"type=\"PU\" os_index=\"-1\"", "os_index \"-1\" is out of range"},
        {"type=\"PU\" os_index=\" 99999999999999999999999\"", "is out of range"},
        {"type=\"PU\" os_index=\"&#50;000000000\"", "os_index \"2000000000\" is out of range"},
        /* the type as hwloc reads it: any case, a prefix, a reference */
        {"type=\"pu\" os_index=\"4294967294\"", "os_index \"4294967294\" is out of range"},
        {"type=\"P&#85;\" os_index=\"4294967294\"", "os_index \"4294967294\" is out of range"},
        {"type=\"PU\" os_index=\"65536\"", "os_index \"65536\" is out of range"},
    };
    shoal_topo_t t;

    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        expect_load_error(variant(pu1, refused[i].to), SHOAL_ERR_TOPOLOGY, refused[i].needle, "at byte");
        CHECK_CONTAINS(shoal_topo_last_error(), "hwloc would build CPU and NUMA sets that large");
    }
    /* A PU or NUMA node without os_index (hwloc numbers it 2^32-1), and a
     * type only the XML parser could read. */
    expect_load_error(variant(pu1, "type=\"PU\""), SHOAL_ERR_TOPOLOGY, "a PU or NUMANode without os_index",
                      "4294967295");
    expect_load_error(variant("type=\"NUMANode\" os_index=\"1\"", "type=\"NUMANode\" os_indexx=\"1\""),
                      SHOAL_ERR_TOPOLOGY, "a PU or NUMANode without os_index", NULL);
    expect_load_error(variant("type=\"NUMANode\" os_index=\"1\"", "type=\"node\" os_indexx=\"1\""), SHOAL_ERR_TOPOLOGY,
                      "a PU or NUMANode without os_index", NULL);
    /* An object behind a DOCTYPE whose literal looks like a comment's start
     * is still seen. */
    {
        FILE *f = fopen(tmp_path(), "w");
        CHECK(f != NULL);
        CHECK(fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"<!--\">\n"
                    "<topology version=\"2.0\">\n <object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" "
                    "complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\">\n  <object type=\"PU\" "
                    "os_index=\"4294967294\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
                    "complete_nodeset=\"0x1\"/>\n </object>\n <!-- -->\n</topology>\n",
                    f) >= 0);
        CHECK_EQ_INT(fclose(f), 0);
        expect_load_error(tmp_path(), SHOAL_ERR_TOPOLOGY, "os_index \"4294967294\" is out of range", "at byte");
    }
    /* The complete_cpuset after a tab, then removed. */
    expect_load_error(variant("cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\"", "\tcpuset='0x00000002'"),
                      SHOAL_ERR_TOPOLOGY, "cpuset or nodeset without its complete_cpuset", "hwloc would crash");
    expect_load_error(variant("nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"8\"",
                              "nodeset=\"0x00000001\" gp_index=\"8\""),
                      SHOAL_ERR_TOPOLOGY, "cpuset or nodeset without", NULL);

    /* Sets hwloc 2.9's parser asserts on (a leading comma aborts the
     * process), or that are not sets at all. */
    expect_load_error(variant("complete_cpuset=\"0x00000002\"", "complete_cpuset=\",0x00000002\""), SHOAL_ERR_TOPOLOGY,
                      "its complete_cpuset \",0x00000002\" is not a set as hwloc writes them", "hwloc could abort");
    expect_load_error(variant("nodeset=\"0x00000001\"", "nodeset=\"0x1,\""), SHOAL_ERR_TOPOLOGY, "its nodeset \"0x1,\"",
                      NULL);
    expect_load_error(variant("complete_cpuset=\"0x00000002\"", "complete_cpuset=\"0x12345678901234567\""),
                      SHOAL_ERR_TOPOLOGY, "is not a set as hwloc writes them", NULL);
    expect_load_error(variant("complete_cpuset=\"0x00000002\"", "complete_cpuset=\"0x2 \""), SHOAL_ERR_TOPOLOGY,
                      "is not a set as hwloc writes them", NULL);
    /* Zero words written empty, as hwloc writes sparse sets, load. */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant("complete_cpuset=\"0x00000002\"", "complete_cpuset=\"0x0,,,0x00000002\""), &t),
                 SHOAL_SUCCESS);
    shoal_topo_destroy(t);

    /* The limit itself loads; so do refused forms inside a comment, CDATA
     * or a processing instruction, and attributes named like them. */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant(pu1, "type=\"PU\" os_index=\"65535\""), &t), SHOAL_SUCCESS);
    CHECK_EQ_INT(shoal_topo_n_cores(t), 32);
    shoal_topo_destroy(t);
    /* Only PU and NUMA node numbers become set bits: a package may carry
     * any number (ACPI table offsets on some arm64 machines); os_index
     * written before type is still caught on a PU. */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant("type=\"Package\" os_index=\"1\"", "type=\"Package\" os_index=\"70000\""), &t),
                 SHOAL_SUCCESS);
    CHECK_EQ_INT(shoal_topo_n_packages(t), 2);
    shoal_topo_destroy(t);
    expect_load_error(variant(pu1, "os_index=\"70000\" type=\"PU\""), SHOAL_ERR_TOPOLOGY,
                      "a PU or NUMANode os_index \"70000\" is out of range", NULL);
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant("<topology",
                                         "<!-- <object type=\"PU\" os_index=\"2000000000\" cpuset=\"0x1\"/> "
                                         "--><?x <object os_index=\"-1\"> ?><topology"),
                                 &t),
                 SHOAL_SUCCESS);
    CHECK_EQ_INT(shoal_topo_n_cores(t), 32);
    shoal_topo_destroy(t);

    /* NVLink bandwidths near 2^64 (or -1) are a thousand links at most, not
     * a count that wrapped to 1. */
    t = NULL;
    CHECK_EQ_INT(shoal_topo_load(variant_of("h200x2-nv18.xml", "length=\"18\">0 450000 450000 0",
                                            "length=\"46\">0 18446744073709551615 18446744073709551615 0"),
                                 &t),
                 SHOAL_SUCCESS);
    expect_pair(t, 0, 1, NVL, 1000, 0);
    shoal_topo_destroy(t);
}

int main(void)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR");

    CHECK_MSG(src && *src, "SHOAL_TEST_SRCDIR must name the source tree (ctest sets it)");
    snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/topology", src);
    unsetenv("SHOAL_TOPO_FILE");

    test_h200();
    test_nvswitch();
    test_nvswitch_2board();
    test_pcie();
    test_xml_forms();
    test_nvlink_pairs();
    test_cpu_only();
    test_env_file();
    test_live();
    test_store_direct();
    test_store_hidden_switch();
    test_store_switches();
    test_errors();
    test_prescan();
    check_note("topology model: all checks passed");
    return 0;
}
