from django.urls import path

from cashier import views

app_name = "cashier"

urlpatterns = [
    path("", views.cashier_home, name="home"),
    path("deposit/", views.cashier_deposit, name="deposit"),
    path("withdraw/", views.cashier_withdraw, name="withdraw"),
    path("statement.csv", views.cashier_statement, name="statement"),
]
