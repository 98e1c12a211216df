# batch_norm.default-134 (seed 1; inputs: normal, normal, normal, pos)
def forward(a0, a1, a2, a3):
    return F.batch_norm(a0.permute(2, 3, 0, 1), a2, a3, None, a1, False, 0.1, 1e-05)

