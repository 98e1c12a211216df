# index_copy.default-12 (seed 1; inputs: normal, index, normal)
def forward(a0, a1, a2):
    return torch.index_copy(a0, -2, a1, a2)

