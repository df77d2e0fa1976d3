# Wrong: updated the parameter with the old sum, before adding this step's grad²
def adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps):
    clr = lr / (1 + (step - 1) * lr_decay)
    param.sub_(clr * grad / (state_sum.sqrt() + eps))
    state_sum.add_(grad * grad)
