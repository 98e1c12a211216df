# repeat.default-23 (seed 11; inputs: normal)
def forward(a0):
    return a0.repeat(1, 1, 0, 1)

