# index_add.default-16 (seed 1; inputs: normal, index, normal)
def forward(a0, a1, a2):
    return torch.index_add(a0.transpose(0, 2), -4, a1[1:21], a2.expand(20, 68, 1, 3), alpha=-3.0)

