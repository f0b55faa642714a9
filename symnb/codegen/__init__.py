"""Code generation: SymPy expressions -> C++/CUDA source text.

Pure functions, testable without compilers (no ctypes, no CuPy):

``printer.py``  one C-family printer (float32/float64, strict, CSE, stable helpers)
``kernels.py``  kernel templates and :func:`~symnb.codegen.kernels.render_program`
                (the ABI is docs/CONTRACTS.md section 2)
"""
