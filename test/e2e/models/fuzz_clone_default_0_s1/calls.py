# clone.default-0 (seed 1; inputs: normal)
def forward(a0):
    return a0.clone()

