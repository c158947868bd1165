#!/usr/bin/env node
// Machine code of every production kernel variant, per kernel function, so that a refactor of the
// .cu files can be shown to change no SASS without a GPU (and without cuobjdump: the cubin is an ELF
// file whose section .text.<kernel> holds the kernel's SASS and .nv.info.<kernel> its attributes,
// registers included; both are compared byte for byte).
//
//   node bench/kernels/sass-snapshot.mjs save <out.json> [root=src]
//     compiles each .cu under root once per `// nvcc-variant:` line (as scripts/nvcc-all.mjs does,
//     nvcc -arch=sm_90 -cubin --std=c++17) and stores, per (kernel function, flags), a hash and
//     the size of its SASS (.text.<kernel>), of its attributes (.nv.info.<kernel>), and the sizes
//     of its shared memory and parameter bank.
//   node bench/kernels/sass-snapshot.mjs compare <before.json> <after.json>
//     matches each (function, flags) of before with after, after renaming the defines in RENAMED
//     below, and prints identical / DIFFERENT per kernel, 'not built' for a kernel of before that no
//     variant of after builds (say, a kernel that shared a module with the one the host launches from
//     it, now in a file of its own) and 'new' for the others; exits 1 on any difference.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCu, variantsOf } from '../../scripts/kernel-variants.mjs';

// Old define -> new define (a refactor that renames a -D flag lists it here; '': a define the
// kernel no longer takes, its one value now the only build).
const RENAMED = {
  '-DJMODE=2': '-DROUNDS_GROUP_REGISTER_PLAYERS=1',
  '-DJMODE=3': '-DROUNDS_GROUP_HALO=1',
  '-DNW_MODE=0': '',
  '-DREMAT=0': '',
};



/** The sections of an ELF64 file (a cubin), name -> bytes, and its symbols' names by index. */
function elf(buf) {
  const shoff = Number(buf.readBigUInt64LE(0x28));
  const shentsize = buf.readUInt16LE(0x3a), shnum = buf.readUInt16LE(0x3c), shstrndx = buf.readUInt16LE(0x3e);
  const hdr = (i) => {
    const o = shoff + i * shentsize;
    return { name: buf.readUInt32LE(o), type: buf.readUInt32LE(o + 4), offset: Number(buf.readBigUInt64LE(o + 0x18)), size: Number(buf.readBigUInt64LE(o + 0x20)) };
  };
  const cstr = (at) => buf.toString('latin1', at, buf.indexOf(0, at));
  const strtab = hdr(shstrndx);
  const names = [], sections = {};
  for (let i = 0; i < shnum; i++) {
    const h = hdr(i);
    names.push(cstr(strtab.offset + h.name));
    sections[names[i]] = h.type === 8 ? Buffer.alloc(h.size) : buf.subarray(h.offset, h.offset + h.size);  // (8: NOBITS)
  }
  const symtab = sections['.symtab'], symstr = sections['.strtab'];
  const symbols = [];
  for (let o = 0; symtab && o + 24 <= symtab.length; o += 24) {
    const nameOff = symtab.readUInt32LE(o), shndx = symtab.readUInt16LE(o + 6);
    // (section symbols have no name of their own: their section's)
    symbols.push(nameOff ? symstr.toString('latin1', nameOff, symstr.indexOf(0, nameOff)) : `section ${names[shndx]}`);
  }
  return { sections, symbols };
}

const hash = (b) => createHash('sha256').update(b).digest('hex').slice(0, 16);

// .nv.info attributes whose data starts with a symbol index (PARAM_CBANK, FRAME_SIZE,
// MIN_STACK_SIZE, MAX_STACK_SIZE, REGCOUNT): the index changes with the other kernels of the file,
// so it is replaced by the symbol's name.
const SYMBOL_ATTRS = new Set([0x0a, 0x11, 0x12, 0x23, 0x2f]);

/** The attribute records of an .nv.info section as text, symbol indices named; `only`: records of that symbol. */
function infoRecords(buf, symbols, only) {
  const out = [];
  for (let o = 0; o + 2 <= buf.length;) {
    const fmt = buf[o], attr = buf[o + 1];
    let data;
    if (fmt === 0x04) { const size = buf.readUInt16LE(o + 2); data = buf.subarray(o + 4, o + 4 + size); o += 4 + size; }
    else if (fmt === 0x03) { data = buf.subarray(o + 2, o + 4); o += 4; }
    else if (fmt === 0x02) { data = buf.subarray(o + 2, o + 3); o += 4; }
    else { data = Buffer.alloc(0); o += 2; }
    let sym = null;
    if (SYMBOL_ATTRS.has(attr) && data.length >= 4) { sym = symbols[data.readUInt32LE(0)] ?? '?'; data = data.subarray(4); }
    if (only && sym !== only) continue;
    out.push(`${fmt}/${attr.toString(16)}${sym ? ` ${sym}` : ''}: ${data.toString('hex')}`);
  }
  return out;
}

/**
 * Per kernel of a cubin: its SASS (hash and size of .text.<kernel>), its attributes (.nv.info.<kernel>
 * and its records in .nv.info, registers and stack included), shared and parameter bytes.
 */
function kernelsOf(cubin) {
  const { sections, symbols } = elf(readFileSync(cubin));
  const out = {};
  for (const name of Object.keys(sections)) {
    const m = /^\.text\.(.+)$/.exec(name);
    if (!m) continue;
    const fn = m[1];
    const info = [
      ...infoRecords(sections['.nv.info'] ?? Buffer.alloc(0), symbols, fn),
      ...infoRecords(sections[`.nv.info.${fn}`] ?? Buffer.alloc(0), symbols),
    ].join('\n');
    out[fn] = {
      sass: `${hash(sections[name])} ${sections[name].length} B`,
      info: `${hash(info)} ${info.length} chars`,
      shared: (sections[`.nv.shared.${fn}`] ?? Buffer.alloc(0)).length,
      params: (sections[`.nv.constant0.${fn}`] ?? Buffer.alloc(0)).length,
    };
  }
  return out;
}

const key = (fn, flags) => `${fn} [${[...flags].sort().join(' ')}]`;

function save(outFile, root) {
  const dir = mkdtempSync(join(tmpdir(), 'sass-'));
  const result = {};
  try {
    for (const file of findCu(root)) {
      for (const flags of variantsOf(file)) {
        const cubin = join(dir, 'k.cubin');
        const r = spawnSync('nvcc', ['-arch=sm_90', '-cubin', '--std=c++17', ...flags, '-o', cubin, file], { encoding: 'utf8' });
        if (r.status !== 0) { console.error(`FAIL ${file} ${flags.join(' ')}\n${r.stderr}`); process.exitCode = 1; continue; }
        for (const [fn, k] of Object.entries(kernelsOf(cubin))) result[key(fn, flags)] = { file, ...k };
        console.log(`${file} ${flags.join(' ')}`);
      }
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
  writeFileSync(outFile, JSON.stringify(result, null, 1));
  console.log(`saved ${Object.keys(result).length} kernels to ${outFile}`);
}

function compare(beforeFile, afterFile) {
  const before = JSON.parse(readFileSync(beforeFile, 'utf8'));
  const after = JSON.parse(readFileSync(afterFile, 'utf8'));
  const rename = (k) => {
    const m = /^(\S+) \[(.*)\]$/.exec(k);
    return key(m[1], m[2].split(' ').filter(Boolean).map((f) => RENAMED[f] ?? f).filter(Boolean));
  };
  let bad = 0, gone = 0;
  const matched = new Set();
  for (const [k, v] of Object.entries(before)) {
    const k2 = rename(k);
    const a = after[k2];
    if (!a) { console.log(`not built ${k} (${v.file})`); gone++; continue; }
    matched.add(k2);
    const diff = ['sass', 'info', 'shared', 'params'].filter((f) => a[f] !== v[f]);
    if (diff.length > 0) bad++;
    console.log(`${diff.length === 0 ? 'identical' : `DIFFERENT (${diff.map((f) => `${f} ${v[f]} -> ${a[f]}`).join(', ')})`} ${k2}  ${v.file} -> ${a.file}`);
  }
  for (const k of Object.keys(after)) if (!matched.has(k)) console.log(`new       ${k} (${after[k].file})`);
  console.log(`${matched.size - bad} of ${matched.size} kernels built before and after identical, ${bad} different; ${gone} no longer built, ${Object.keys(after).length - matched.size} new`);
  process.exit(bad > 0 ? 1 : 0);
}

const [cmd, a, b] = process.argv.slice(2);
if (cmd === 'save' && a) save(a, b ?? 'src');
else if (cmd === 'compare' && a && b) compare(a, b);
else { console.error('usage: sass-snapshot.mjs save <out.json> [root] | compare <before.json> <after.json>'); process.exit(2); }
