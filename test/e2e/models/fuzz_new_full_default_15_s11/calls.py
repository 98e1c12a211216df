# new_full.default-15 (seed 11; inputs: normal)
def forward(a0):
    return a0.new_full((45, 1), True, dtype=torch.bfloat16)

