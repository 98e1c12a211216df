# where.self-13 (seed 1205; inputs: normal, normal, normal)
def forward(a0, a1, a2):
    return torch.where(a0.expand(46, 268), a1, a2.transpose(0, -1))

