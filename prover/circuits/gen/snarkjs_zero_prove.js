// Proves with snarkjs after forcing its blinding scalars r = s = 0
// (SNARKJS-FORMATS 7.4: the zero-blinding proof is deterministic).
// usage: node snarkjs_zero_prove.js REPO_ROOT circuit.zkey witness.wtns proof.json
// snarkjs draws r, s with curve.Fr.random() on the curve object that
// ffjavascript's buildBls12381() caches, so patching that object suffices.
const path = require("path");
const root = process.argv[2];
const snarkjs = require(path.join(root, "node_modules/snarkjs"));
const ff = require(path.join(root, "node_modules/ffjavascript"));
(async () => {
    const curve = await ff.buildBls12381();
    curve.Fr.random = () => curve.Fr.zero;
    const { proof } = await snarkjs.groth16.prove(process.argv[3], process.argv[4]);
    require("fs").writeFileSync(process.argv[5], JSON.stringify(proof, null, 1) + "\n");
    await curve.terminate();
    process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
