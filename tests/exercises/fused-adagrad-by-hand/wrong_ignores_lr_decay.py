# Wrong: used lr as the step size on every step, ignoring lr_decay
def adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps):
    state_sum.add_(grad * grad)
    param.sub_(lr * grad / (state_sum.sqrt() + eps))
