from django.urls import path

from cashier import views

app_name = "cashier"

urlpatterns = [
    path("", views.cashier_home, name="home"),
    path("deposit/", views.cashier_deposit, name="deposit"),
    path("withdraw/", views.cashier_withdraw, name="withdraw"),
    path(
        "withdrawals/<int:withdrawal_id>/cancel/",
        views.cashier_withdrawal_cancel,
        name="withdrawal_cancel",
    ),
    path("statement.csv", views.cashier_statement, name="statement"),
]
