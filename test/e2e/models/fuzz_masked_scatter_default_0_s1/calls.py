# masked_scatter.default-0 (seed 1; inputs: normal, normal, normal)
def forward(a0, a1, a2):
    return a0.masked_scatter(a1, a2)

