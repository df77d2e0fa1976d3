# Wrong: rebound the local names instead of updating the tensors in place
def adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps):
    state_sum = state_sum + grad * grad
    clr = lr / (1 + (step - 1) * lr_decay)
    param = param - clr * grad / (state_sum.sqrt() + eps)
    return param
