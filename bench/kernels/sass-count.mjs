#!/usr/bin/env node
// Instruction counts of one kernel of an sm_90 cubin, by opcode and by pipe, without cuobjdump or
// nvdisasm (this machine has nvcc and ptxas only): Volta+ instructions are 16 bytes, the opcode in
// bits 0..8 of the first word (bits 9..11: the operand form), as in Mesa's NVIDIA compiler (nak,
// sm70 encoder). The names are those the encoder gives and, for Hopper's own (VIADD, VIADDMNMX,
// VIMNMX), found by compiling one-line kernels; an opcode not in the table prints as opXXX.
//
// The range counted: one iteration of a layered LDPC decoder, from the barrier before the first
// layer to the barrier after the last (LAYERS of them; the iteration loop's back edge is not found
// by branch targets, which this does not decode), or the whole kernel with --all.
//
//   nvcc -arch=sm_90 -cubin --std=c++17 <defines> -o k.cubin src/coding/gpu/layered.cu
//   node bench/kernels/sass-count.mjs k.cubin ldpc_layered --layers=46 [--start=N] [--per-layer]
//
// Pipes (a lead, as bench/coding/gpu-ldpc.ts counts them): FMA pipe FADD, FMUL, FFMA, IMAD and
// HFMA2.MMA; memory, barriers and control apart; every other instruction on the ALU (integer /
// logic, half rate on Hopper).
import { readFileSync } from 'node:fs';

const [file, kernel] = process.argv.slice(2);
const flag = (name) => process.argv.find((a) => a.startsWith(`--${name}`));
const value = (name, dflt) => (flag(name)?.includes('=') ? Number(flag(name).split('=')[1]) : dflt);
if (!file || !kernel) {
  console.error('usage: node bench/kernels/sass-count.mjs <file.cubin> <kernel> [--layers=N] [--start=N] [--per-layer] [--all]');
  process.exit(2);
}

const b = readFileSync(file);
const shoff = Number(b.readBigUInt64LE(0x28));
const shentsize = b.readUInt16LE(0x3a);
const shnum = b.readUInt16LE(0x3c);
const shstrndx = b.readUInt16LE(0x3e);
const section = (i) => {
  const o = shoff + i * shentsize;
  return { name: b.readUInt32LE(o), off: Number(b.readBigUInt64LE(o + 0x18)), size: Number(b.readBigUInt64LE(o + 0x20)) };
};
const strtab = section(shstrndx);
const nameAt = (n) => {
  let e = strtab.off + n;
  let s = '';
  while (b[e]) s += String.fromCharCode(b[e++]);
  return s;
};
let text;
for (let i = 0; i < shnum; i++) if (nameAt(section(i).name) === `.text.${kernel}`) text = section(i);
if (!text) {
  console.error(`no section .text.${kernel} in ${file}`);
  process.exit(1);
}

const NAMES = {
  0x002: 'MOV', 0x005: 'CS2R', 0x007: 'SEL', 0x008: 'FSEL', 0x009: 'FMNMX', 0x00a: 'FSET', 0x00b: 'FSETP',
  0x00c: 'ISETP', 0x010: 'IADD3', 0x011: 'LEA', 0x012: 'LOP3', 0x013: 'IABS', 0x016: 'PRMT', 0x017: 'IMNMX',
  0x019: 'SHF', 0x01c: 'PLOP3', 0x020: 'FMUL', 0x021: 'FADD', 0x023: 'FFMA', 0x024: 'IMAD', 0x025: 'IMAD.WIDE',
  0x035: 'HFMA2.MMA', 0x036: 'VIADD', 0x046: 'VIADDMNMX', 0x048: 'VIMNMX', 0x082: 'UMOV', 0x0b9: 'ULDC',
  0x104: 'F2F', 0x105: 'F2I', 0x106: 'I2F', 0x107: 'FRND', 0x108: 'MUFU', 0x109: 'POPC', 0x118: 'NOP',
  0x119: 'S2R', 0x11d: 'BAR', 0x141: 'BSYNC', 0x145: 'BSSY', 0x147: 'BRA', 0x14d: 'EXIT', 0x181: 'LDG',
  0x183: 'LDL', 0x184: 'LDS', 0x186: 'STG', 0x187: 'STL', 0x188: 'STS',
};
const FMA = new Set(['FADD', 'FMUL', 'FFMA', 'IMAD', 'IMAD.WIDE', 'HFMA2.MMA']);
const OTHER = new Set(['LDS', 'STS', 'LDL', 'STL', 'LDG', 'STG', 'BAR', 'BRA', 'BSSY', 'BSYNC', 'NOP', 'EXIT', 'S2R', 'CS2R', 'UMOV', 'ULDC']);

const ops = [];
for (let o = 0; o < text.size; o += 16) {
  const w = b.readUInt32LE(text.off + o);
  ops.push(NAMES[w & 0x1ff] ?? `op${(w & 0xfff).toString(16)}`);
}
let lo = 0;
let hi = ops.length - 1;
const layers = value('layers', 0);
const bars = ops.flatMap((op, i) => (op === 'BAR' ? [i] : []));
if (!flag('all')) {
  if (!layers) {
    console.error('--layers=N (the decoder’s layers: a barrier after each), or --all');
    process.exit(2);
  }
  // the first barrier followed by a layer's code (the leading ones close the set-up)
  const first = value('start', bars.findIndex((x, i) => bars[i + 1] - x > 1));
  if (first < 0 || first + layers >= bars.length) {
    console.error(`${bars.length} barriers: no ${layers} layers after barrier ${first}`);
    process.exit(1);
  }
  lo = bars[first] + 1;
  hi = bars[first + layers];
  if (flag('per-layer'))
    console.log(`per layer: ${bars.slice(first + 1, first + layers + 1).map((x, i) => x - bars[first + i]).join(' ')}`);
}
const count = new Map();
for (const op of ops.slice(lo, hi + 1)) count.set(op, (count.get(op) ?? 0) + 1);
const total = hi - lo + 1;
let fma = 0;
let other = 0;
for (const [op, n] of count) {
  if (FMA.has(op)) fma += n;
  else if (OTHER.has(op)) other += n;
}
console.log(
  `${kernel}: ${flag('all') ? 'whole kernel' : `one iteration (instructions ${lo}..${hi})`}: ${total} instructions; FMA pipe ${fma}, ALU ${total - fma - other}, memory / barrier / control ${other}`,
);
console.log(
  [...count.entries()]
    .sort((x, y) => y[1] - x[1])
    .map(([op, n]) => `${op} ${n}`)
    .join(', '),
);
