/** Child process of args.test.ts: `node args-probe.js LO HI ...options` parses the options with bench/args.ts, --n in [LO, HI]. */
import { BenchArgs } from '../../bench/args.js';

const [lo, hi] = [Number(process.argv[2]), Number(process.argv[3])];
const cl = BenchArgs.parse(
  'probe',
  'probe [--n N] [--xs A,B] [--words a,b] [--x X] [--label L]',
  ['n', 'xs', 'words', 'x', 'label'],
  process.argv.slice(4),
  ['on'],
);
cl.int('n', lo, hi, 0);
cl.numbers('xs', lo, hi, []);
cl.choices('words', ['alpha', 'beta', 'gamma'], []);
cl.number('x', -1, 1, 0);
