# rms_norm.default-41 (seed 11; inputs: normal, pos)
def forward(a0, a1):
    return rms_norm(a0.expand(9, 6, 6, 7, 7), [7], a1, None)

