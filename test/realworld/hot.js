// test/realworld/hot.js — node's JIT at work: a recursive fib in a loop for
// SECONDS (argv[2], default 2.5), so `--perf-basic-prof` writes its frames
// to /tmp/perf-PID.map.
'use strict';
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 1000 * Number(process.argv[2] || 2.5);
let sum = 0;
while (Date.now() < end) sum += fib(24);
if (sum === 42) console.log(sum);
