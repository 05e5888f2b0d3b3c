from django.urls import include, path

from judge_site.courses import api, exam_api, exam_views, views

app_name = "courses"

# Below /courses/<course_id>/ (the pages) and /api/v1/courses/<course_id>/ (the API).
course_pages = [
    path("", views.course_detail, name="detail"),
    path("email-sharing", views.email_sharing, name="email_sharing"),
    path("manage", views.course_manage, name="manage"),
    path("progress", views.course_progress, name="progress"),
    path("rotate-code", views.course_rotate, name="rotate"),
    path("roster", views.roster_import, name="roster"),
    path("instructors", views.instructor_add, name="instructor_add"),
    path("assignments", views.assignment_create, name="assignment_create"),
    path("assignments/<int:assignment_id>/reschedule", views.assignment_reschedule,
         name="reschedule"),
    path("assignments/<int:assignment_id>/extension", views.extension_grant, name="extension"),
    path("students/<int:user_id>/remove", views.student_remove, name="student_remove"),
    path("students/<int:user_id>/problems/<int:number>", views.student_submissions,
         name="student_submissions"),
    path("leaderboard/<int:number>", views.course_leaderboard, name="leaderboard"),
    path("exams", exam_views.exam_create, name="exam_create"),
    path("exams/<int:exam_id>/", include([
        path("", exam_views.exam_detail, name="exam"),
        path("start", exam_views.exam_start, name="exam_start"),
        path("extension", exam_views.exam_extend, name="exam_extend"),
        path("unfreeze", exam_views.exam_unfreeze, name="exam_unfreeze"),
    ])),
]
course_api = [
    path("exams", exam_api.exams, name="api_exams"),
    path("exams/<int:exam_id>/", include([
        path("start", exam_api.exam_start, name="api_exam_start"),
        path("scoreboard", exam_api.exam_scoreboard, name="api_exam_scoreboard"),
        path("unfreeze", exam_api.exam_unfreeze, name="api_exam_unfreeze"),
    ])),
    path("join", api.course_join, name="api_course_join"),
    path("roster", api.course_roster, name="api_course_roster"),
    path("assignments", api.course_assignments, name="api_course_assignments"),
    path("grades.csv", api.course_grades, name="api_course_grades"),
]
invitations = [
    path("<int:invitation_id>/accept", views.invitation_accept, name="invitation_accept"),
    path("<int:invitation_id>/decline", views.invitation_decline, name="invitation_decline"),
]
invitations_api = [
    path("<int:invitation_id>/accept", api.invitation_accept, name="api_invitation_accept"),
    path("<int:invitation_id>/decline", api.invitation_decline, name="api_invitation_decline"),
]

urlpatterns = [
    path("courses/", views.course_list, name="list"),
    path("courses/new", views.course_create, name="create"),
    path("courses/join", views.course_join, name="join"),
    path("courses/invitations/", include(invitations)),
    path("courses/<int:course_id>/", include(course_pages)),
    path("api/v1/courses", api.courses, name="api_courses"),
    path("api/v1/courses/invitations", api.my_invitations, name="api_invitations"),
    path("api/v1/courses/invitations/", include(invitations_api)),
    path("api/v1/courses/<int:course_id>/", include(course_api)),
]
