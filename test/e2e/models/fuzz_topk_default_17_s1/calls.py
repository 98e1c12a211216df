# topk.default-17 (seed 1; inputs: distinct)
def forward(a0):
    return torch.topk(a0, 3, dim=-2, largest=False)

