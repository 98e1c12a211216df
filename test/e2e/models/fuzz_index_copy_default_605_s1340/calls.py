# index_copy.default-605 (seed 1340; inputs: normal, index, normal)
def forward(a0, a1, a2):
    return torch.index_copy(a0, -1, a1, a2.transpose(-1, 1))

