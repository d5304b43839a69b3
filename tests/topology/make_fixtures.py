#!/usr/bin/env python3
"""Write the hwloc XML fixtures of the topology tests.

    tests/topology/make_fixtures.py [--h200-source PATH] [--check]

Fixtures land in tests/fixtures/topology/:

  h200x2-pcie.xml        the real two-H200 machine, unchanged: hwloc without
                         NVML saw only its PCIe tree (GPUs on one host bridge)
  h200x2-nv18.xml        the same plus the "NVLinkBandwidth" matrix hwloc's
                         NVML backend would have written: 18 NVLinks between
                         the GPUs (nvidia-smi topo -m: NV18), as PCI objects
  nvswitch-8gpu.xml      an HGX-like board: 8 GPUs, each with 18 NVLinks into
                         4 NVSwitches (5+4+4+5), matrix over the GPUs' NVML OS
                         devices and the switches' PCI devices (heterogeneous,
                         as hwloc's NVML backend writes it)
  nvswitch-islands-8gpu.xml  two NVSwitch fabrics in one box: GPUs 0-3 on
                         switches 0-1, GPUs 4-7 on switches 2-3 (9 links into
                         each), the switches named apart by the info
                         ShoalNVLinkFabric ("0" and "1": what says they are
                         separate fabrics; without it they would be one)
  nvswitch-2board-16gpu.xml  an HGX-2/DGX-2-like machine: 16 GPUs on two
                         baseboards, each GPU with one link into each of its
                         own baseboard's 6 NVSwitches (12 in all, 6 per
                         socket); the links joining the two boards' switches
                         are not in the matrix, as with hwloc's NVML backend
  pcie-8gpu.xml          8 GPUs on PCIe, two sockets: socket 0 has two host
                         bridges each with one switch of 2 GPUs (PIX, NODE);
                         socket 1 one host bridge with a switch above two
                         switches of 2 GPUs (PIX, PXB); across sockets SYS
  nvlink-pairs-4gpu.xml  4 GPUs, NVLink between 0-1 (4 links) and 2-3 (2
                         links) only, matrix over NVML OS devices; two root
                         ports of one host bridge (PHB between the pairs)
  cpu-2socket.xml        two sockets, no GPU, an Ethernet NIC and an
                         InfiniBand HCA
  bad/truncated.xml      an XML cut in the middle
  bad/not-a-topology.xml well-formed XML that is no hwloc topology
  bad/gpu-no-pci.xml     an NVLinkBandwidth matrix naming a GPU OS device
                         that has no PCI device above it

Not written here: h200x2-nvml-export.xml is what `shoal-topo --export` wrote
on the H200 machine itself (2026-11-29), the matrix coming from shoal's own
NVML probe; the tests check it gives the same answers as h200x2-nv18.xml.

Values follow hwloc's NVML backend: 25000 MB/s per NVLink (versions 2-4),
summed per pair of objects, 1000000 on the diagonal.

The H200 source is /work/shared/data/h200x2-nv18.hwloc.xml (the machine's
`lstopo --of xml`); without it the script reuses the committed
h200x2-pcie.xml. --check loads every good fixture with lstopo-no-graphics.
Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(SRCDIR, 'tests', 'fixtures', 'topology')

LINK_MBPS = 25000    # one NVLink, one direction, as hwloc's NVML backend writes it
DIAGONAL = 1000000   # hwloc's NVML backend puts this on the diagonal

# hwloc_distances_kind_e
KIND_FROM_OS, KIND_MEANS_BANDWIDTH, KIND_HETEROGENEOUS = 1, 8, 16
# The info an NVSwitch may carry to name its NVLink fabric (shoal's own:
# topology/topo_internal.h, SHOAL__NVLINK_FABRIC_INFO)
FABRIC_INFO = 'ShoalNVLinkFabric'
# hwloc_obj_osdev_type_e, as numbers in the XML
OSDEV_BLOCK, OSDEV_GPU, OSDEV_NETWORK, OSDEV_OPENFABRICS = 0, 1, 2, 3

# PCI identities: class [vendor:device] [subvendor:subdevice] revision
H100 = ('0302 [10de:2330] [10de:16c1] a1', 'NVIDIA Corporation', 'GH100 [H100 SXM5 80GB]')
L40S = ('0302 [10de:26b9] [10de:1851] a1', 'NVIDIA Corporation', 'AD102GL [L40S]')
A100 = ('0302 [10de:20b2] [10de:1463] a1', 'NVIDIA Corporation', 'GA100 [A100 SXM4 80GB]')
V100 = ('0302 [10de:1db8] [10de:12ab] a1', 'NVIDIA Corporation', 'GV100GL [Tesla V100 SXM3 32GB]')
NVSWITCH_V1 = ('0680 [10de:1ac1] [10de:1ac1] a1', 'NVIDIA Corporation', 'GV100 [NVSwitch]')
NVSWITCH = ('0680 [10de:22a3] [10de:1796] a1', 'NVIDIA Corporation', 'GH100 [H100 NVSwitch]')
CX7 = ('0207 [15b3:1021] [15b3:0041] 00', 'Mellanox Technologies', 'MT2910 Family [ConnectX-7]')
CX5 = ('0207 [15b3:1017] [15b3:0007] 00', 'Mellanox Technologies', 'MT27800 Family [ConnectX-5]')
X710 = ('0200 [8086:1572] [8086:0000] 02', 'Intel Corporation', 'Ethernet Controller X710 for 10GbE SFP+')
NVME = ('0108 [144d:a80a] [144d:a801] 00', 'Samsung Electronics Co Ltd', 'NVMe SSD Controller PM9A1/PM9A3/980PRO')
ROOT_PORT = '0604 [8086:352a] [0000:0000] 04'
SWITCH_PORT = '0604 [1000:c030] [0000:0000] b0'  # a Broadcom PEX89xxx port


# ---------------------------------------------------------------- a small hwloc XML writer

class Obj:
    """One <object>; children in order: memory, normal, I/O (as hwloc exports)."""

    def __init__(self, otype, **attrs):
        self.type = otype
        self.attrs = attrs
        self.infos = []
        self.children = []
        self.gp = None

    def add(self, child):
        self.children.append(child)
        return child

    def info(self, name, value):
        self.infos.append((name, value))
        return self


def bitmap(bits):
    """hwloc bitmap text: 32-bit words, most significant first, "0x%08x" each."""
    value = 0
    for b in bits:
        value |= 1 << b
    words = []
    while True:
        words.append(value & 0xffffffff)
        value >>= 32
        if not value:
            break
    return ','.join('0x%08x' % w for w in reversed(words))


def number(root):
    """Give every object a gp_index, depth first, from 1."""
    counter = [0]

    def walk(o):
        counter[0] += 1
        o.gp = counter[0]
        for c in o.children:
            walk(c)
    walk(root)


def write_obj(o, out, indent):
    pad = '  ' * indent
    attrs = ''.join(' %s="%s"' % (k, v) for k, v in o.attrs.items() if k not in ('gp_index',))
    head = '%s<object type="%s"%s gp_index="%d"' % (pad, o.type, attrs, o.gp)
    if not o.infos and not o.children:
        out.append(head + '/>')
        return
    out.append(head + '>')
    for name, value in o.infos:
        out.append('%s  <info name="%s" value="%s"/>' % (pad, name, value))
    for c in o.children:
        write_obj(c, out, indent + 1)
    out.append(pad + '</object>')


def distances_xml(name, objs, values, kind):
    """<distances2> (one object type) or <distances2hetero> over objs."""
    types = {o.type for o in objs}
    if len(types) == 1:
        tag = 'distances2'
        head = '<distances2 type="%s" nbobjs="%d" kind="%d" name="%s" indexing="gp">' % (
            objs[0].type, len(objs), kind, name)
        idx = ''.join('%d ' % o.gp for o in objs)
    else:
        tag = 'distances2hetero'
        head = '<distances2hetero nbobjs="%d" kind="%d" name="%s">' % (
            len(objs), kind | KIND_HETEROGENEOUS, name)
        idx = ''.join('%s:%d ' % (o.type, o.gp) for o in objs)
    vals = ''.join('%d ' % v for v in values)
    return ['  ' + head,
            '    <indexes length="%d">%s</indexes>' % (len(idx), idx),
            '    <u64values length="%d">%s</u64values>' % (len(vals), vals),
            '  </%s>' % tag]


def document(root, distances=()):
    number(root)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
           '<topology version="2.0">']
    write_obj(root, out, 1)
    for d in distances:
        out += d()  # a thunk: gp indexes exist only now
    out.append('</topology>')
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------- machine pieces

class Machine:
    """CPUs: packages of cores (one PU each), one NUMA node per package."""

    def __init__(self, hostname, packages, cores_per_package, mem_per_numa=64 << 30,
                 cpu_model='Intel(R) Xeon(R) Platinum 8480+'):
        self.n_pu = packages * cores_per_package
        allpu = bitmap(range(self.n_pu))
        allnode = bitmap(range(packages))
        self.root = Obj('Machine', os_index=0, cpuset=allpu, complete_cpuset=allpu, allowed_cpuset=allpu,
                        nodeset=allnode, complete_nodeset=allnode, allowed_nodeset=allnode)
        self.root.info('Backend', 'Linux').info('OSName', 'Linux').info('HostName', hostname)
        self.root.info('Architecture', 'x86_64').info('hwlocVersion', '2.9.0')
        self.packages = []
        for p in range(packages):
            pus = range(p * cores_per_package, (p + 1) * cores_per_package)
            cs, ns = bitmap(pus), bitmap([p])
            sets = dict(cpuset=cs, complete_cpuset=cs, nodeset=ns, complete_nodeset=ns)
            pkg = self.root.add(Obj('Package', os_index=p, **sets))
            pkg.info('CPUVendor', 'GenuineIntel').info('CPUModel', cpu_model)
            pkg.add(Obj('NUMANode', os_index=p, local_memory=mem_per_numa, **sets))
            l3 = pkg.add(Obj('L3Cache', os_index=p, cache_size=105 << 20, depth=3, cache_linesize=64,
                             cache_associativity=15, cache_type=0, **sets))
            for pu in pus:
                one = bitmap([pu])
                psets = dict(cpuset=one, complete_cpuset=one, nodeset=ns, complete_nodeset=ns)
                core = l3.add(Obj('Core', os_index=pu - p * cores_per_package, **psets))
                core.add(Obj('PU', os_index=pu, **psets))
            self.packages.append(pkg)


def host_bridge(parent, bus_lo, bus_hi, domain=0):
    return parent.add(Obj('Bridge', bridge_type='0-1', depth=0,
                          bridge_pci='%04x:[%02x-%02x]' % (domain, bus_lo, bus_hi)))


def pci_bridge(parent, busid, bus_lo, bus_hi, depth, ident=SWITCH_PORT, domain=0):
    return parent.add(Obj('Bridge', bridge_type='1-1', depth=depth,
                          bridge_pci='%04x:[%02x-%02x]' % (domain, bus_lo, bus_hi),
                          pci_busid='%04x:%s' % (domain, busid), pci_type=ident, pci_link_speed='31.507692'))


def pci_dev(parent, busid, ident, domain=0, speed='31.507692'):
    pci_type, vendor, device = ident
    dev = parent.add(Obj('PCIDev', pci_busid='%04x:%s' % (domain, busid), pci_type=pci_type, pci_link_speed=speed))
    dev.info('PCIVendor', vendor).info('PCIDevice', device)
    return dev


def os_dev(parent, name, osdev_type, subtype=None, **infos):
    attrs = dict(name=name)
    if subtype:
        attrs['subtype'] = subtype
    attrs['osdev_type'] = osdev_type
    dev = parent.add(Obj('OSDev', **attrs))
    for k, v in infos.items():
        dev.info(k, v)
    return dev


def gpu(parent, busid, ident, nvml_index=None):
    """A GPU PCI device, with the OS device hwloc's NVML backend would add."""
    dev = pci_dev(parent, busid, ident, speed='63.015385')
    if nvml_index is not None:
        nv = os_dev(dev, 'nvml%d' % nvml_index, OSDEV_GPU, 'NVML', Backend='NVML',
                    GPUVendor='NVIDIA Corporation', GPUModel=ident[2].split('[')[-1].rstrip(']'))
        return dev, nv
    return dev, None


def nic(parent, busid, ident, netname, ibname=None):
    dev = pci_dev(parent, busid, ident)
    os_dev(dev, netname, OSDEV_NETWORK, Address='02:00:00:00:%s:00' % busid[:2])
    if ibname:
        os_dev(dev, ibname, OSDEV_OPENFABRICS, NodeGUID='0000:0000:0000:%s00' % busid[:2])
    return dev


def switch(parent, up_busid, bus_lo, bus_hi, depth):
    """A PCIe switch: its upstream port; callers add downstream ports."""
    return pci_bridge(parent, up_busid, bus_lo, bus_hi, depth)


def matrix(n, pairs, diagonal=DIAGONAL):
    """n x n bandwidths from {(i, j): links} (symmetric)."""
    values = [0] * (n * n)
    for i in range(n):
        values[i * n + i] = diagonal
    for (i, j), links in pairs.items():
        values[i * n + j] = values[j * n + i] = links * LINK_MBPS
    return values


# ---------------------------------------------------------------- the fixtures

def nvswitch_8gpu():
    m = Machine('hgx-h100', packages=2, cores_per_package=16)
    gpus, nics = [], []
    bus = 0x10
    for p, pkg in enumerate(m.packages):
        for hb in range(2):
            lo = bus
            b = host_bridge(pkg, lo, lo + 0xf)
            rp = pci_bridge(b, '%02x:01.0' % lo, lo + 1, lo + 0xf, 1, ROOT_PORT)
            up = switch(rp, '%02x:00.0' % (lo + 1), lo + 2, lo + 0xf, 2)
            for slot in range(2):
                down = pci_bridge(up, '%02x:%02x.0' % (lo + 2, slot), lo + 3 + slot, lo + 3 + slot, 3)
                dev, nv = gpu(down, '%02x:00.0' % (lo + 3 + slot), H100, nvml_index=len(gpus))
                gpus.append(nv)
            down = pci_bridge(up, '%02x:02.0' % (lo + 2), lo + 5, lo + 5, 3)
            nics.append(nic(down, '%02x:00.0' % (lo + 5), CX7, 'ibp%ds0' % (lo + 5), 'mlx5_%d' % len(nics)))
            bus += 0x20
    # The four NVSwitches sit behind one more switch of socket 0, as on HGX boards.
    hb = host_bridge(m.packages[0], 0xa0, 0xaf)
    rp = pci_bridge(hb, 'a0:01.0', 0xa1, 0xaf, 1, ROOT_PORT)
    up = switch(rp, 'a1:00.0', 0xa2, 0xaf, 2)
    switches = []
    for s in range(4):
        down = pci_bridge(up, 'a2:%02x.0' % s, 0xa3 + s, 0xa3 + s, 3)
        sw = pci_dev(down, '%02x:00.0' % (0xa3 + s), NVSWITCH)
        sw.attrs = dict(subtype='NVSwitch', **sw.attrs)  # hwloc's NVML backend marks them so
        switches.append(sw)
    per_switch = [5, 4, 4, 5]  # 18 links per GPU, split over the four switches
    objs = gpus + switches
    n = len(objs)
    links = {}
    for g in range(len(gpus)):
        for s, k in enumerate(per_switch):
            links[(g, len(gpus) + s)] = k
    return document(m.root, [lambda: distances_xml('NVLinkBandwidth', objs, matrix(n, links),
                                                   KIND_FROM_OS | KIND_MEANS_BANDWIDTH)])


def pcie_8gpu():
    m = Machine('pcie-8gpu', packages=2, cores_per_package=16)
    s0, s1 = m.packages
    # Socket 0: two host bridges, one switch each (2 GPUs; a NIC on the first).
    for lo, with_nic in ((0x00, True), (0x20, False)):
        hb = host_bridge(s0, lo, lo + 0x1f)
        rp = pci_bridge(hb, '%02x:01.0' % lo, lo + 1, lo + 6, 1, ROOT_PORT)
        up = switch(rp, '%02x:00.0' % (lo + 1), lo + 2, lo + 6, 2)
        for slot in range(2):
            down = pci_bridge(up, '%02x:%02x.0' % (lo + 2, slot), lo + 3 + slot, lo + 3 + slot, 3)
            gpu(down, '%02x:00.0' % (lo + 3 + slot), L40S)
        if with_nic:
            down = pci_bridge(up, '%02x:02.0' % (lo + 2), lo + 5, lo + 5, 3)
            nic(down, '%02x:00.0' % (lo + 5), X710, 'ens%df0' % (lo + 5))
    # Socket 1: one host bridge, a switch above two switches of 2 GPUs each.
    hb = host_bridge(s1, 0x80, 0x9f)
    rp = pci_bridge(hb, '80:01.0', 0x81, 0x8c, 1, ROOT_PORT)
    top = switch(rp, '81:00.0', 0x82, 0x8c, 2)
    for i, lo in enumerate((0x83, 0x87)):
        down = pci_bridge(top, '82:%02x.0' % i, lo, lo + 3, 3)
        sw = switch(down, '%02x:00.0' % lo, lo + 1, lo + 3, 4)
        for slot in range(2):
            d2 = pci_bridge(sw, '%02x:%02x.0' % (lo + 1, slot), lo + 2 + slot, lo + 2 + slot, 5)
            gpu(d2, '%02x:00.0' % (lo + 2 + slot), L40S)
        if i == 1:
            d2 = pci_bridge(sw, '%02x:02.0' % (lo + 1), 0x8c, 0x8c, 5)
            nic(d2, '8c:00.0', X710, 'ens140f0')
    return document(m.root)


def nvlink_pairs_4gpu():
    m = Machine('a100-pairs', packages=1, cores_per_package=32)
    hb = host_bridge(m.packages[0], 0x00, 0x1f)
    nv = []
    for i, lo in enumerate((0x01, 0x11)):
        rp = pci_bridge(hb, '00:%02x.0' % (i + 1), lo, lo + 5, 1, ROOT_PORT)
        up = switch(rp, '%02x:00.0' % lo, lo + 1, lo + 5, 2)
        for slot in range(2):
            down = pci_bridge(up, '%02x:%02x.0' % (lo + 1, slot), lo + 2 + slot, lo + 2 + slot, 3)
            nv.append(gpu(down, '%02x:00.0' % (lo + 2 + slot), A100, nvml_index=len(nv))[1])
        if i == 0:
            down = pci_bridge(up, '%02x:02.0' % (lo + 1), lo + 4, lo + 4, 3)
            nic(down, '%02x:00.0' % (lo + 4), CX7, 'ibp5s0', 'mlx5_0')
    return document(m.root, [lambda: distances_xml('NVLinkBandwidth', nv, matrix(4, {(0, 1): 4, (2, 3): 2}),
                                                   KIND_FROM_OS | KIND_MEANS_BANDWIDTH)])


def cpu_2socket():
    m = Machine('cpu-2socket', packages=2, cores_per_package=16)
    hb0 = host_bridge(m.packages[0], 0x00, 0x3f)
    rp = pci_bridge(hb0, '00:02.0', 0x01, 0x01, 1, ROOT_PORT)
    nic(rp, '01:00.0', X710, 'eno1')
    rp = pci_bridge(hb0, '00:03.0', 0x02, 0x02, 1, ROOT_PORT)
    ssd = pci_dev(rp, '02:00.0', NVME)
    os_dev(ssd, 'nvme0n1', OSDEV_BLOCK, Size='1000204886')
    hb1 = host_bridge(m.packages[1], 0x80, 0xbf)
    rp = pci_bridge(hb1, '80:02.0', 0x81, 0x81, 1, ROOT_PORT)
    nic(rp, '81:00.0', CX7, 'ib0', 'mlx5_0')
    return document(m.root)


def gpu_no_pci():
    """Two GPU OS devices straight under a host bridge, named by the matrix."""
    m = Machine('broken', packages=1, cores_per_package=4)
    hb = host_bridge(m.packages[0], 0x00, 0x0f)
    nv = [os_dev(hb, 'nvml%d' % i, OSDEV_GPU, 'NVML', Backend='NVML') for i in range(2)]
    return document(m.root, [lambda: distances_xml('NVLinkBandwidth', nv, matrix(2, {(0, 1): 18}),
                                                   KIND_FROM_OS | KIND_MEANS_BANDWIDTH)])


def h200(source):
    """The real machine plus the matrix NVML reports there: 18 NVLinks."""
    text = open(source).read()
    root = ET.fromstring(text.encode('utf-8'))
    gps = [int(o.get('gp_index')) for o in root.iter('object')
           if o.get('type') == 'PCIDev' and re.match(r'03.. \[10de:', o.get('pci_type', ''))]
    if len(gps) != 2:
        sys.exit('make_fixtures: expected 2 NVIDIA GPUs in %s, found %d' % (source, len(gps)))

    class Gp:  # what distances_xml needs of an object
        def __init__(self, gp):
            self.type, self.gp = 'PCIDev', gp
    block = distances_xml('NVLinkBandwidth', [Gp(g) for g in gps], matrix(2, {(0, 1): 18}, diagonal=0),
                          KIND_FROM_OS | KIND_MEANS_BANDWIDTH)
    # Insert after the object tree, where hwloc exports distances, leaving
    # every byte of the machine's own description as it was.
    at = text.index('  <support ') if '  <support ' in text else text.rindex('</topology>')
    return text, text[:at] + '\n'.join(block) + '\n' + text[at:]


def write(name, text):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    print('wrote', os.path.relpath(path, SRCDIR))
    return path


def nvswitch_islands_8gpu():
    """Two NVSwitch fabrics in one box: GPUs 0-3 have 9 links into each of
    switches 0 and 1, GPUs 4-7 into switches 2 and 3, and the switches are
    named apart (FABRIC_INFO "0" and "1"): separate fabrics. Within a fabric
    18 links; across, only PCIe (one host bridge)."""
    m = Machine('nvswitch-islands', packages=2, cores_per_package=16)
    hb = host_bridge(m.packages[0], 0x10, 0x4f)
    gpus = []
    for i in range(8):
        rp = pci_bridge(hb, '10:%02x.0' % (i + 1), 0x11 + i, 0x11 + i, 1, ROOT_PORT)
        dev, nv = gpu(rp, '%02x:00.0' % (0x11 + i), H100, nvml_index=i)
        gpus.append(nv)
    hb2 = host_bridge(m.packages[0], 0xa0, 0xaf)
    switches = []
    for s in range(4):
        rp = pci_bridge(hb2, 'a0:%02x.0' % (s + 1), 0xa1 + s, 0xa1 + s, 1, ROOT_PORT)
        sw = pci_dev(rp, '%02x:00.0' % (0xa1 + s), NVSWITCH)
        sw.attrs = dict(subtype='NVSwitch', **sw.attrs)
        sw.info(FABRIC_INFO, str(s // 2))
        switches.append(sw)
    objs = gpus + switches
    links = {}
    for g in range(8):
        for s in ((0, 1) if g < 4 else (2, 3)):
            links[(g, 8 + s)] = 9
    return document(m.root, [lambda: distances_xml('NVLinkBandwidth', objs, matrix(len(objs), links),
                                                   KIND_FROM_OS | KIND_MEANS_BANDWIDTH)])


def nvswitch_2board_16gpu():
    """16 GPUs on two baseboards (as HGX-2 and DGX-2): baseboard b holds GPUs
    8b..8b+7 and NVSwitches 6b..6b+5, each GPU has one NVLink into each
    switch of its own baseboard, and the boards' switches are joined by links
    of their own that the matrix does not show. Baseboard b hangs off socket
    b: two root ports, each a switch above two switches of 2 GPUs and a NIC;
    the board's NVSwitches behind a switch of a third root port.
    Every pair: NVLink through the switches, 6 links."""
    m = Machine('hgx2-v100', packages=2, cores_per_package=24, mem_per_numa=768 << 30,
                cpu_model='Intel(R) Xeon(R) Platinum 8168 CPU @ 2.70GHz')
    gpus, switches, nics = [], [], []
    for b, pkg in enumerate(m.packages):
        base = 0x80 * b
        hb = host_bridge(pkg, base, base + 0x7f)
        for r in range(2):
            lo = base + 0x10 + 0x20 * r
            rp = pci_bridge(hb, '%02x:%02x.0' % (base, r + 1), lo, lo + 0x1f, 1, ROOT_PORT)
            up = switch(rp, '%02x:00.0' % lo, lo + 1, lo + 0x1f, 2)
            for leaf in range(2):
                lb = lo + 2 + 8 * leaf
                down = pci_bridge(up, '%02x:%02x.0' % (lo + 1, leaf), lb, lb + 7, 3)
                sw = switch(down, '%02x:00.0' % lb, lb + 1, lb + 7, 4)
                for slot in range(2):
                    d2 = pci_bridge(sw, '%02x:%02x.0' % (lb + 1, slot), lb + 2 + slot, lb + 2 + slot, 5)
                    gpus.append(gpu(d2, '%02x:00.0' % (lb + 2 + slot), V100, nvml_index=len(gpus))[1])
                d2 = pci_bridge(sw, '%02x:02.0' % (lb + 1), lb + 4, lb + 4, 5)
                nics.append(nic(d2, '%02x:00.0' % (lb + 4), CX5, 'ibp%ds0' % (lb + 4), 'mlx5_%d' % len(nics)))
        lo = base + 0x60
        rp = pci_bridge(hb, '%02x:03.0' % base, lo, lo + 0xf, 1, ROOT_PORT)
        up = switch(rp, '%02x:00.0' % lo, lo + 1, lo + 0xf, 2)
        for s in range(6):
            down = pci_bridge(up, '%02x:%02x.0' % (lo + 1, s), lo + 2 + s, lo + 2 + s, 3)
            nvs = pci_dev(down, '%02x:00.0' % (lo + 2 + s), NVSWITCH_V1)
            nvs.attrs = dict(subtype='NVSwitch', **nvs.attrs)
            switches.append(nvs)
    objs = gpus + switches
    links = {}
    for g in range(16):
        for s in range(6):
            links[(g, 16 + 6 * (g // 8) + s)] = 1
    return document(m.root, [lambda: distances_xml('NVLinkBandwidth', objs, matrix(len(objs), links),
                                                   KIND_FROM_OS | KIND_MEANS_BANDWIDTH)])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--h200-source', metavar='PATH',
                    help='the H200 machine as lstopo exported it (default: the recorded '
                         'tests/fixtures/topology/h200x2-pcie.xml)')
    ap.add_argument('--check', action='store_true', help='load every good fixture with lstopo-no-graphics')
    args = ap.parse_args()

    committed = os.path.join(OUT, 'h200x2-pcie.xml')
    source = args.h200_source or committed
    if not os.path.isfile(source):
        sys.exit('make_fixtures: %s not found' % source)
    raw, nv18 = h200(source)
    good = [committed if source == committed else write('h200x2-pcie.xml', raw),
            write('h200x2-nv18.xml', nv18),
            write('nvswitch-8gpu.xml', nvswitch_8gpu()),
            write('nvswitch-islands-8gpu.xml', nvswitch_islands_8gpu()),
            write('nvswitch-2board-16gpu.xml', nvswitch_2board_16gpu()),
            write('pcie-8gpu.xml', pcie_8gpu()),
            write('nvlink-pairs-4gpu.xml', nvlink_pairs_4gpu()),
            write('cpu-2socket.xml', cpu_2socket())]
    write('bad/gpu-no-pci.xml', gpu_no_pci())
    cut = pcie_8gpu()
    write('bad/truncated.xml', cut[:len(cut) // 2])
    write('bad/not-a-topology.xml', '<?xml version="1.0"?>\n<inventory><machine name="x"/></inventory>\n')

    if args.check:
        lstopo = shutil.which('lstopo-no-graphics')
        if not lstopo:
            sys.exit('make_fixtures: --check needs lstopo-no-graphics')
        for path in good + [os.path.join(OUT, 'bad', 'gpu-no-pci.xml')]:
            r = subprocess.run([lstopo, '-i', path, '--of', 'console', '--distances'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            if r.returncode != 0 or r.stderr.strip():
                sys.exit('make_fixtures: lstopo cannot load %s:\n%s' % (path, r.stderr))
            print('lstopo loads', os.path.relpath(path, SRCDIR))


if __name__ == '__main__':
    main()
