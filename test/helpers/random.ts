// The seeded PRNG the tests use: the fuzzer's (src/fuzz/random.ts), so both draw identical sequences.
export { rng } from "../../src/fuzz/random.js";
