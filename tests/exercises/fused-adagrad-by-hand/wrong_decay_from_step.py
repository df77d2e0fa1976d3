# Wrong: decayed with step instead of step - 1, so even the first step is too small
def adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps):
    state_sum.add_(grad * grad)
    clr = lr / (1 + step * lr_decay)
    param.sub_(clr * grad / (state_sum.sqrt() + eps))
