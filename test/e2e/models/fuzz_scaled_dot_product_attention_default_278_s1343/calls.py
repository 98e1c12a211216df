# scaled_dot_product_attention.default-278 (seed 1343; inputs: unit, unit, unit)
def forward(a0, a1, a2):
    return sdpa(a0.permute(0, 2, 3, 4, -4), a1, a2, None, 0.0, True, scale=0.125, enable_gqa=True)

