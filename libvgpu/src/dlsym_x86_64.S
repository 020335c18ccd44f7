/* dlsym(handle, name): ask vgpu_dlsym_decide, else tail-jump to the real dlsym so that the
 * real one sees the application's return address (RTLD_NEXT semantics). */
#if defined(__x86_64__)
    .text
    .globl dlsym
    .type dlsym, @function
dlsym:
    .cfi_startproc
    endbr64
    pushq %rdi
    .cfi_adjust_cfa_offset 8
    pushq %rsi
    .cfi_adjust_cfa_offset 8
    subq $8, %rsp
    .cfi_adjust_cfa_offset 8
    movq 24(%rsp), %rdx
    call vgpu_dlsym_decide
    addq $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq %rsi
    .cfi_adjust_cfa_offset -8
    popq %rdi
    .cfi_adjust_cfa_offset -8
    testq %rax, %rax
    jz 1f
    ret
1:
    movq vgpu_real_dlsym_ptr(%rip), %rax
    testq %rax, %rax
    jz 2f
    jmp *%rax
2:
    ret
    .cfi_endproc
    .size dlsym, .-dlsym
#endif
    .section .note.GNU-stack,"",@progbits
