//! Loops compiled for wide vectors where the CPU has them. A program built for any x86-64 may
//! only use SSE2, which has no instruction that converts 64-bit integers to floats or back, so
//! the compiler keeps loops that do (the decimal float transform) to one value at a time,
//! dividing one value at a time too. [`wide`] runs such a loop compiled for AVX-512 instead when
//! the CPU has it: eight values an instruction, with the same correctly rounded results, since
//! IEEE 754 rounds a vector lane's conversion or quotient exactly as it rounds a scalar's.

/// Runs `kernel`, compiled for AVX-512 (F and DQ) when the CPU has them. `kernel` should be a
/// `move` closure around one short loop over slices, which the compiler inlines into the AVX-512
/// function and then vectorizes: the machine code of the float encoding's loops shows 512-bit
/// conversions and divisions. (A closure that captures by reference may keep its loop scalar: the
/// compiler cannot tell that writing the output does not change what the captured references
/// point to.) The results are the same either way; only the speed differs.
#[inline(always)]
pub(crate) fn wide<R>(kernel: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512dq") {
        // SAFETY: the CPU has AVX-512 DQ, and with it AVX-512 F: the features `avx512` is
        // compiled for, which is all that calling it requires.
        #[allow(unsafe_code)]
        return unsafe { avx512(kernel) };
    }
    kernel()
}

/// Runs `kernel` compiled for AVX-512 F and DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn avx512<R>(kernel: impl FnOnce() -> R) -> R {
    kernel()
}
