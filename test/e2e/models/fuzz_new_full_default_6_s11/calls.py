# new_full.default-6 (seed 11; inputs: normal)
def forward(a0):
    return a0.expand(6, 1).new_full((5, 388, 1), 0.5, dtype=torch.bool)

