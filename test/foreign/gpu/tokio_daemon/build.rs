// Links the GPU shim (libgpushim.a, built by ../build.sh with nvcc) and the
// CUDA runtime, statically: GPUSHIM_DIR names the shim's folder, CUDA_LIB_DIR
// the folder of libcudart_static.a (default /usr/local/cuda/lib64).  With
// GPUSHIM_NO_CUDA=1 the shim is cpu_shim.c's (the Makefile's CPU-only build
// for the tests: --cpu-only runs only) and no CUDA library is linked.
fn main() {
    println!("cargo:rerun-if-env-changed=GPUSHIM_DIR");
    println!("cargo:rerun-if-env-changed=CUDA_LIB_DIR");
    println!("cargo:rerun-if-env-changed=GPUSHIM_NO_CUDA");
    let shim = std::env::var("GPUSHIM_DIR")
        .expect("GPUSHIM_DIR: the folder of libgpushim.a (build with test/foreign/gpu/build.sh)");
    let cuda = std::env::var("CUDA_LIB_DIR").unwrap_or_else(|_| "/usr/local/cuda/lib64".into());
    println!("cargo:rerun-if-changed={}/libgpushim.a", shim);
    println!("cargo:rustc-link-search=native={}", shim);
    println!("cargo:rustc-link-search=native={}", cuda);
    println!("cargo:rustc-link-lib=static=gpushim");
    if std::env::var("GPUSHIM_NO_CUDA").map(|v| v == "1").unwrap_or(false) {
        return;
    }
    println!("cargo:rustc-link-lib=static=cudart_static");
    for lib in ["stdc++", "dl", "rt", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={}", lib);
    }
}
