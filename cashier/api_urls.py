from django.urls import path

from cashier import api, audit_api

app_name = "cashier-api"

urlpatterns = [
    path("wallet/", api.WalletView.as_view(), name="wallet"),
    path("deposit/", api.DepositView.as_view(), name="deposit"),
    path("withdraw/", api.WithdrawView.as_view(), name="withdraw"),
    path("transactions/", api.TransactionsView.as_view(), name="transactions"),
    path("audit/journal/", api.JournalExportView.as_view(), name="audit-journal"),
    path(
        "audit/journal/manifest/",
        api.JournalManifestView.as_view(),
        name="audit-journal-manifest",
    ),
    path("audit/adjustments/", api.AdjustmentsExportView.as_view(), name="audit-adjustments"),
    path(
        "audit/adjustments/manifest/",
        api.AdjustmentsManifestView.as_view(),
        name="audit-adjustments-manifest",
    ),
    path("audit/balances/", api.BalancesExportView.as_view(), name="audit-balances"),
    path("audit/rake/", api.RakeReportView.as_view(), name="audit-rake"),
    path("audit/log/", audit_api.AuditLogExportView.as_view(), name="audit-log"),
    path(
        "audit/log/manifest/",
        audit_api.AuditLogManifestView.as_view(),
        name="audit-log-manifest",
    ),
    path("audit/daily/", audit_api.DailyReportView.as_view(), name="audit-daily"),
]
